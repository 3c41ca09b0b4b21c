import Foundation
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// More clients than the daemon has descriptors for: it does not crash or
/// spin on the failing `accept`; the connections it cannot take wait in
/// the listen queue and are served once descriptors are free again.
@Suite struct DescriptorLimitTests {
    /// What the daemon may open: its own files, loops and threads (about 25)
    /// and room for some clients, far fewer than `clients`.
    static let descriptors = 48
    static let clients = 80

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func clientsBeyondTheDescriptorLimitWaitAndAreServedOnceDescriptorsAreFree() async throws {
        let dir = try ScratchDirectory("descriptor-limit")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try Spawned(
            executable: "/usr/bin/prlimit",
            arguments: ["--nofile=\(Self.descriptors)", PropdLaunch.executable] + paths.arguments,
            environment: PropdLaunch.environment(["NOTIFY_SOCKET": inbox.path]), logPath: paths.log)
        try await daemon.ready(inbox)

        // Every connect succeeds (the listen queue holds what is not yet
        // accepted); the daemon runs out of descriptors while accepting them.
        var waiting = try (0..<Self.clients).map { _ in try RawSocket(path: paths.socket) }
        let last = waiting.removeLast()
        #expect(last.call("io.propd.Set", ["values": ["door.open": true]]))
        // The others leave: their descriptors free, the last is accepted.
        waiting.removeAll()
        let reply = try #require(try await last.receive(timeout: .seconds(60)), "\(daemon.log)")
        #expect(reply["parameters"] == ["revision": 1], "\(reply)")
        #expect(daemon.log.contains("varlink server cannot accept connections, accepting again in 100 ms"), "\(daemon.log)")
        #expect(daemon.log.contains("Too many open files"), "\(daemon.log)")

        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
