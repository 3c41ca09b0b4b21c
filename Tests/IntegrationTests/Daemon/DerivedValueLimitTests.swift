import Foundation
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One Bind and one Set must not take the daemon down: derived values that
/// would grow without bound stop at the value limit, in the error state,
/// with the daemon running under a hard memory limit (and again after a
/// restart, which replays nothing that was refused).
@Suite struct DerivedValueLimitTests {
    /// The address space propd may use: room for its threads and the
    /// limit-sized values, far from what a doubling chain of 34 would need (16 GiB).
    static let addressSpace = 1536 * 1024 * 1024

    private func start(_ paths: DaemonPaths, _ inbox: NotifyInbox, log: String) async throws -> Spawned {
        let daemon = try Spawned(
            executable: "/usr/bin/prlimit", arguments: ["--as=\(Self.addressSpace)", PropdLaunch.executable] + paths.arguments,
            environment: PropdLaunch.environment(["NOTIFY_SOCKET": inbox.path]), logPath: log)
        try await daemon.ready(inbox)
        return daemon
    }

    private func call(_ socket: RawSocket, _ method: String, _ parameters: JSONValue) async throws -> [String: JSONValue] {
        #expect(socket.call("io.propd." + method, parameters))
        return try #require(try await socket.receive(timeout: .seconds(120)))
    }

    /// Sends `calls` with one write, so that the daemon reads them in one
    /// go, and returns their replies in order.
    private func pipeline(_ socket: RawSocket, _ calls: [(String, JSONValue)]) async throws -> [[String: JSONValue]] {
        var frames: [UInt8] = []
        for (method, parameters) in calls {
            frames += JSONValue.object(["method": .string("io.propd." + method), "parameters": parameters]).jsonBytes + [0]
        }
        #expect(socket.send(frames))
        var replies: [[String: JSONValue]] = []
        for _ in calls { replies.append(try #require(try await socket.receive(timeout: .seconds(120)))) }
        return replies
    }

    /// The property `key` as Get returns it.
    private func property(_ socket: RawSocket, _ key: String) async throws -> JSONValue? {
        guard case .array(let properties)? = try await call(socket, "Get", ["keys": [.string(key)]])["parameters"]?["properties"]
        else { return nil }
        return properties.first
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func aDoublingChainAScanAndAThrottleStayWithinTheLimitUnderAMemoryLimit() async throws {
        let dir = try ScratchDirectory("derived-limit")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try await start(paths, inbox, log: paths.log)
        let socket = try RawSocket(path: paths.socket)

        for i in 1...34 {
            let bound = try await call(socket, "Bind", ["key": .string("k\(i)"), "expression": .string("k\(i - 1).map { $0 + $0 }")])
            #expect(bound["error"] == nil, "\(bound)")
        }
        let throttled = try await call(socket, "Bind", ["key": "t", "expression": "k22.map { [$0, $0, $0] }.throttle(50ms)"])
        #expect(throttled["error"] == nil)
        let scanned = try await call(socket, "Bind", ["key": "acc", "expression": #"x.scan("") { a, v in a + v }"#])
        #expect(scanned["error"] == nil)

        #expect(try await call(socket, "Set", ["values": ["k0": "x"]])["error"] == nil)
        // 2^23 characters (with quotes) pass the 8 MiB limit: k23 is refused, k24… never evaluated.
        let k22 = try #require(try await property(socket, "k22"))
        #expect(k22["error"] == nil)
        let k23 = try #require(try await property(socket, "k23"))
        #expect(k23["value"] == nil)
        #expect(k23["error"].map { "\($0)".contains("value too large") } == true, "\(k23["error"] ?? .null)")
        let t = try #require(try await property(socket, "t"))
        #expect(t["error"].map { "\($0)".contains("value too large") } == true)

        let chunk = JSONValue.string(String(repeating: "y", count: 1024 * 1024))
        for _ in 1...12 { #expect(try await call(socket, "Set", ["values": ["x": chunk]])["error"] == nil) }
        let acc = try #require(try await property(socket, "acc"))
        #expect(acc["error"].map { "\($0)".contains("value too large") } == true)
        if case .string(let kept)? = acc["value"] { #expect(kept.utf8.count <= 8 * 1024 * 1024) } else {
            Issue.record("acc kept no value")
        }

        // A restart under the same limit replays nothing that was refused.
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(60)) == .exited(0))
        let again = try await start(paths, inbox, log: dir.file("2.log"))
        let second = try RawSocket(path: paths.socket)
        let k23Again = try #require(try await property(second, "k23"))
        #expect(k23Again["error"].map { "\($0)".contains("value too large") } == true)
        #expect(try await call(second, "Set", ["values": ["k0": "xy"]])["error"] == nil)
        #expect(try await property(second, "k1")?["value"] == "xyxy")
        again.signal(SIGTERM)
        #expect(try await again.exit(timeout: .seconds(60)) == .exited(0))
    }

    @Test func aWriteRecomputingMoreThanTheBoundIsRefusedAndChangesNothing() async throws {
        let dir = try ScratchDirectory("derived-bound")
        let paths = DaemonPaths(dir)
        try dir.write("propd.conf", "limits:\n  max-derived-per-revision: 20\n")
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            paths.arguments + ["--config", dir.file("propd.conf")], environment: ["NOTIFY_SOCKET": inbox.path],
            logPath: paths.log)
        try await daemon.ready(inbox)
        let socket = try RawSocket(path: paths.socket)
        for i in 0..<30 {
            #expect(try await call(socket, "Bind", ["key": .string("fan.\(i)"), "expression": .string("src.map { $0 + \(i) }")])["error"] == nil)
        }
        let refused = try await call(socket, "Set", ["values": ["src": 1]])
        #expect(refused["error"] == "io.propd.LimitExceeded")
        #expect(refused["parameters"]?["limit"] == "max-derived-per-revision")
        #expect(refused["parameters"]?["maximum"] == 20)
        let missing = try await call(socket, "Get", ["keys": ["src"]])
        #expect(missing["error"] == "io.propd.NoSuchKey")
        // The engine is consistent with the store: a small write still works.
        #expect(try await call(socket, "Set", ["values": ["other": 1]])["error"] == nil)

        // Pipelined, so that they are read, and committed, together: the
        // refused Set is rolled back alone, its neighbours are kept.
        let replies = try await pipeline(socket, [
            ("Set", ["values": ["before": 1]]), ("Set", ["values": ["src": 2]]), ("Set", ["values": ["after": 3]]),
        ])
        #expect(replies.map { $0["error"] } == [nil, "io.propd.LimitExceeded", nil])
        #expect(try await property(socket, "before")?["value"] == 1)
        #expect(try await property(socket, "after")?["value"] == 3)
        #expect(try await call(socket, "Get", ["keys": ["src"]])["error"] == "io.propd.NoSuchKey")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
