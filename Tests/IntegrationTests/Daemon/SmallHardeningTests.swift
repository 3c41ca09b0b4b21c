import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Small holes, each closed: stray signals, numbers out of range, a stalled
/// subscriber at SIGTERM, and connections per user.
@Suite struct SmallHardeningTests {
    private func start(_ dir: ScratchDirectory, config: String? = nil) async throws -> (Spawned, DaemonPaths, NotifyInbox) {
        let started = try await PropdLaunch.ready(in: dir, config: config)
        return (started.daemon, started.paths, started.inbox)
    }

    @Test func sigusr1AndSigusr2AreIgnoredAndANumberOutOfRangeIsInvalidParameter() async throws {
        let dir = try ScratchDirectory("small-signals")
        let (daemon, paths, _) = try await start(dir)
        daemon.signal(SIGUSR1)
        daemon.signal(SIGUSR2)
        let socket = try RawSocket(path: paths.socket)
        #expect(socket.send(Array(#"{"method": "io.propd.Set", "parameters": {"values": {"n": 1e400}}}"#.utf8) + [0]))
        let refused = try #require(try await socket.receive())
        #expect(refused["error"] == "org.varlink.service.InvalidParameter", "\(refused)")
        // The same connection goes on, and the daemon is alive after both signals.
        #expect(socket.call("io.propd.Set", ["values": ["n": 1]]))
        #expect(try await socket.receive()?["error"] == nil)
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    @Test func aStalledSubscriberDoesNotHoldUpSigterm() async throws {
        let dir = try ScratchDirectory("small-sigterm")
        let (daemon, paths, _) = try await start(dir)
        let stalled = try RawSocket(path: paths.socket)
        #expect(stalled.call("io.propd.Subscribe", ["patterns": ["**"], "initial": false], more: true))
        _ = try #require(try await stalled.receive())
        let writer = try RawSocket(path: paths.socket)
        let value = JSONValue.string(String(repeating: "v", count: 4096))
        for i in 0..<400 {
            #expect(writer.call("io.propd.Set", ["values": [.init("s.k\(i % 50)"): value]]))
            _ = try await writer.receive()
        }
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
        #expect(!daemon.log.contains("shutdown timeout"), "\(daemon.log)")
    }

    @Test(.enabled(if: AccessTests.enabled, "needs root, setpriv, useradd and python3 to act as another user"))
    func connectionsAreLimitedPerUserAndRootIsNeverLockedOut() async throws {
        let user = try TestUser.ensure("propd-test-b")
        let dir = try ScratchDirectory("small-per-uid")
        let (daemon, paths, _) = try await start(dir, config: "limits:\n  max-connections: 4\n  max-connections-per-uid: 2\n")
        chmod(paths.socket, 0o666)
        let first = try PeerClient(user: user, socket: paths.socket, logPath: dir.file("1.log"))
        let second = try PeerClient(user: user, socket: paths.socket, logPath: dir.file("2.log"))
        #expect(try await first.call("Stats")["parameters"] != nil)
        #expect(try await second.call("Stats")["parameters"] != nil)
        let third = try PeerClient(user: user, socket: paths.socket, logPath: dir.file("3.log"))
        // Refused: closed at once (a reset, since its call was never read).
        await #expect(throws: PeerClient.Failure.self) { try await third.call("Stats") }
        // Root gets in beyond max-connections.
        var roots: [RawSocket] = []
        for _ in 0..<5 {
            let socket = try RawSocket(path: paths.socket)
            #expect(socket.call("io.propd.Stats"))
            #expect(try await socket.receive()?["parameters"] != nil)
            roots.append(socket)
        }
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
