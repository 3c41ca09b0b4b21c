public import Foundation

/// A real `propd` process on a private socket and database, for tests that
/// drive the daemon through its public surface (shared by the integration
/// and propctl tests).
public final class PropdProcess {
    public let directory: String
    public let socketPath: String
    public let databasePath: String
    public let bindingsDirectory: String
    public let notify: NotifyListener
    public private(set) var process: Process
    /// Set once the current process has ended (``stop()``, ``kill()``).
    private var exitStatus: Int32?
    private let arguments: [String]
    private let logPath: String

    public struct StartFailure: Error, CustomStringConvertible {
        public var log: String
        public var description: String { "propd did not become ready:\n\(log)" }
    }

    /// The built `propd` next to this test bundle (`swift build` puts every
    /// product of the package in one directory).
    public static var executable: URL {
        if let explicit = ProcessInfo.processInfo.environment["PROPD_BIN"] {
            return URL(fileURLWithPath: explicit)
        }
        return productsDirectory.appendingPathComponent("propd")
    }

    /// The directory of the running test binary, which SwiftPM builds into the
    /// same products directory as the package's executables.
    public static var productsDirectory: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent()
    }

    /// Starts propd in a fresh temporary directory (or `directory`, to restart
    /// on the same database) and waits for its READY=1.
    public init(directory: String? = nil, extraArguments: [String] = [], durability: String = "normal") throws {
        let dir = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("propd-test-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        self.directory = dir
        socketPath = dir + "/propd.sock"
        databasePath = dir + "/propd.db"
        bindingsDirectory = dir + "/bindings.d"
        logPath = dir + "/propd-\(UUID().uuidString.prefix(6)).log"
        try? FileManager.default.removeItem(atPath: dir + "/notify.sock")
        notify = try NotifyListener(directory: dir)
        arguments = [
            "--socket", socketPath, "--database", databasePath, "--bindings", bindingsDirectory,
            "--durability", durability,
        ] + extraArguments
        process = Process()
        try launch()
    }

    private func launch() throws {
        let log = try ChildLog(path: logPath)
        defer { log.closeInParent() }
        let p = Process()
        p.executableURL = Self.executable
        p.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment.removeValue(forKey: "LISTEN_FDS")
        environment.removeValue(forKey: "PROPD_SOCKET")
        p.environment = environment
        p.standardError = log.handle
        p.standardOutput = FileHandle.nullDevice
        try ProcessLaunch.run(p)
        process = p
        exitStatus = nil
        do {
            try notify.wait(for: "READY=1")
        } catch {
            p.terminate()
            throw StartFailure(log: self.log)
        }
    }

    /// What propd wrote to stderr so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then waits for exit; returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if let status = exitStatus { return status }
        process.terminate()
        let status = ChildExit.wait(process)
        exitStatus = status
        return status
    }

    /// SIGKILL: the daemon gets no chance to clean up.
    public func kill() {
        guard exitStatus == nil else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        exitStatus = ChildExit.wait(process)
    }

    /// Starts the daemon again on the same socket, database and bindings.
    public func restart() throws {
        stop()
        try launch()
    }

    deinit {
        if exitStatus == nil {
            Foundation.kill(process.processIdentifier, SIGKILL)
            ChildExit.wait(process)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
