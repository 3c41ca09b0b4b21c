import Foundation
import PropdTestSupport

/// A real etcd cluster of Debian's `etcd` on loopback ports chosen free, its
/// data under a temporary directory, each member stopped by its PID.
///
/// ```swift
/// guard let etcd = EtcdCluster.executable else { print(EtcdCluster.missingReason); return }
/// let cluster = try EtcdCluster(members: 3)
/// try cluster.kill(1)      // SIGKILL, as a crash
/// try cluster.restart(1)   // rejoins on its data dir (--initial-cluster-state existing)
/// ```
public final class EtcdCluster {
    public struct Member {
        public let name: String
        public let clientPort: Int
        public let peerPort: Int
        public var clientURL: String { "http://127.0.0.1:\(clientPort)" }
        public var peerURL: String { "http://127.0.0.1:\(peerPort)" }
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public var member: String
        public var log: String
        public var description: String { "etcd member \(member) did not become healthy:\n\(log)" }
    }

    /// Debian's etcd, or nil when it is not installed (`scripts/install-deps` installs it).
    public static var executable: String? {
        let path = ProcessInfo.processInfo.environment["ETCD_BIN"] ?? "/usr/bin/etcd"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    public static let missingReason =
        "etcd tests skipped: /usr/bin/etcd is not installed (apt-get install etcd-server, or scripts/install-deps)"

    public let directory: String
    public let members: [Member]
    private let token: String
    private let extraArguments: [String]
    private var processes: [Process?]

    /// The client URLs of every member, as `--etcd` takes them.
    public var clientURLs: [String] { members.map(\.clientURL) }

    /// Starts `count` members and waits until each reports healthy.
    public init(members count: Int = 3, extraArguments: [String] = []) throws {
        guard Self.executable != nil else { throw StartFailure(member: "-", log: Self.missingReason) }
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("propd-etcd-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ports = try FreePorts.take(2 * count)
        members = (0..<count).map { Member(name: "m\($0)", clientPort: ports[2 * $0], peerPort: ports[2 * $0 + 1]) }
        token = "propd-test-\(UUID().uuidString.prefix(8))"
        self.extraArguments = extraArguments
        processes = Array(repeating: nil, count: count)
        for index in members.indices { try launch(index, state: "new") }
        for index in members.indices { try waitUntilHealthy(index) }
    }

    private func launch(_ index: Int, state: String) throws {
        let member = members[index]
        let logPath = "\(directory)/\(member.name).log"
        let log = try ChildLog(path: logPath, append: true)
        defer { log.closeInParent() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable ?? "/usr/bin/etcd")
        process.arguments = [
            "--name", member.name,
            "--data-dir", "\(directory)/\(member.name).etcd",
            "--listen-client-urls", member.clientURL,
            "--advertise-client-urls", member.clientURL,
            "--listen-peer-urls", member.peerURL,
            "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ","),
            "--initial-cluster-state", state,
            "--initial-cluster-token", token,
        ] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment = environment.filter { !$0.key.hasPrefix("ETCD_") }
        process.environment = environment
        process.standardOutput = log.handle
        process.standardError = log.handle
        // One spawn at a time across the test process, below the descriptor
        // count at which Foundation's spawn crashes (ProcessLaunch).
        try ProcessLaunch.run(process)
        processes[index] = process
    }

    /// Waits until the member answers `GET /health` with `"health":"true"`
    /// (it has a leader and serves a linearizable read).
    public func waitUntilHealthy(_ index: Int, timeout: Duration = .seconds(60)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let process = processes[index], !process.isRunning { break }
            if HealthProbe.isHealthy(port: members[index].clientPort) { return }
            usleep(50_000)  // polling the condition, not waiting for time
        }
        throw StartFailure(member: members[index].name, log: log(index))
    }

    /// What the member wrote to its log so far.
    public func log(_ index: Int) -> String {
        (try? String(contentsOfFile: "\(directory)/\(members[index].name).log", encoding: .utf8)) ?? ""
    }

    /// The member's PID while it runs.
    public func pid(_ index: Int) -> Int32? {
        guard let process = processes[index], process.isRunning else { return nil }
        return process.processIdentifier
    }

    /// SIGKILL to the member's PID, then waits for it to be gone.
    public func kill(_ index: Int) {
        guard let process = processes[index] else { return }
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
        // Not waitUntilExit(), which spins a cooperative thread (ChildExit).
        ChildExit.wait(process)
        processes[index] = nil
    }

    /// SIGSTOP to the member: its connections stay open and nothing on them
    /// is answered, as when its host hangs or its network drops packets.
    public func freeze(_ index: Int) {
        if let pid = pid(index) { Foundation.kill(pid, SIGSTOP) }
    }

    /// SIGCONT to a frozen member: it goes on where it stopped.
    public func thaw(_ index: Int) {
        if let pid = pid(index) { Foundation.kill(pid, SIGCONT) }
    }

    /// Starts a killed member again on its data dir; it rejoins and catches up.
    /// Waits for health only when `waitForHealth` (a lone member of a cluster
    /// without quorum never becomes healthy).
    public func restart(_ index: Int, waitForHealth: Bool = true) throws {
        if processes[index] != nil { kill(index) }
        try launch(index, state: "existing")
        if waitForHealth { try waitUntilHealthy(index) }
    }

    deinit {
        for index in processes.indices { kill(index) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
