import Foundation
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A damaged row (a column of the wrong type or NULL, written outside propd)
/// is a `StorageFailure` naming its key; the daemon stays up, on every read.
@Suite struct DamagedRowTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func aDamagedRowIsAStorageFailureNamingItsKey() async throws {
        let dir = try ScratchDirectory("damaged-row")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let first = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await first.ready(inbox)
        let setup = try RawSocket(path: paths.socket)
        #expect(setup.call("io.propd.Set", ["values": ["good": 1, "bad": 2]]))
        _ = try await setup.receive()
        first.signal(SIGTERM)
        #expect(try await first.exit(timeout: .seconds(30)) == .exited(0))

        // Damage one row the way a flipped byte can: an integer column that holds text.
        let damage = try Spawned(
            executable: "/usr/bin/python3",
            arguments: [
                "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE properties SET revision='x' WHERE key='bad'\"); c.commit()",
                paths.database,
            ],
            environment: PropdLaunch.environment([:]), logPath: dir.file("damage.log"))
        #expect(try await damage.exit(timeout: .seconds(30)) == .exited(0), "\(damage.log)")

        let daemon = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: dir.file("2.log"))
        try await daemon.ready(inbox)
        let socket = try RawSocket(path: paths.socket)
        for _ in 0..<2 {
            #expect(socket.call("io.propd.Get", ["keys": ["bad"]]))
            let failed = try #require(try await socket.receive())
            #expect(failed["error"] == "io.propd.StorageFailure", "\(failed)")
            let message = "\(failed["parameters"]?["message"] ?? .null)"
            #expect(message.contains("bad"), "\(failed)")
            #expect(socket.call("io.propd.List", [:]))
            #expect(try await socket.receive()?["error"] == "io.propd.StorageFailure")
        }
        // A write reads the row too (its revision, for `expect`): refused, not a crash.
        #expect(socket.call("io.propd.Set", ["values": ["bad": 3], "expect": ["bad": 1]]))
        #expect(try await socket.receive()?["error"] != nil)
        #expect(socket.call("io.propd.Get", ["keys": ["good"]]))
        #expect(try await socket.receive()?["error"] == nil)
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
