import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// propd adopting a listening socket passed with LISTEN_FDS/LISTEN_PID.
@Suite struct SocketActivationTests {
    static let activator = ["/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// systemd-socket-activate binds the socket, waits for the first
    /// connection, then execs propd with the socket as fd 3 (same pid, so
    /// LISTEN_PID matches). The client connects before propd even runs.
    @Test(.enabled(if: activator != nil, "needs systemd-socket-activate"))
    func adoptsThePassedSocketAndServesTheFirstClient() async throws {
        let dir = try ScratchDirectory("activate")
        let paths = DaemonPaths(dir)
        let activated = dir.file("activated.sock")
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let stderr = Pipe()
        let log = dir.file("propd.log")
        let lines = LineReader(stderr)
        let daemon = try DirectChild(
            executable: try #require(Self.activator),
            arguments: ["-l", activated, "--fdname=propd", "-E", "NOTIFY_SOCKET=\(inbox.path)", PropdLaunch.executable]
                + paths.arguments,
            environment: PropdLaunch.environment([:]), logPath: log, standardError: stderr)
        try await lines.wait(containing: "Listening on")
        #expect(!exists(paths.socket))

        let client = try await PropdClient.connect(to: activated)
        let revision = try await client.set(["act.first": 1])
        #expect(revision == 1)
        let ready = try #require(try await inbox.wait(for: "READY=1").last)
        #expect(ready.contains("STATUS=serving \(activated):"), "\(ready)")
        // The configured --socket was ignored: the socket unit decides.
        #expect(!exists(paths.socket))
        #expect(try await client.get(["act.first"]).first?.value == 1)
        await client.close()

        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// LISTEN_FDS meant for another process (LISTEN_PID is not propd's) is
    /// ignored: propd binds its configured path.
    @Test func listenFDsOfAnotherProcessAreIgnored() async throws {
        let dir = try ScratchDirectory("foreign-fds")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            paths.arguments,
            environment: ["NOTIFY_SOCKET": inbox.path, "LISTEN_FDS": "1", "LISTEN_PID": "1", "LISTEN_FDNAMES": "propd"],
            logPath: paths.log)
        try await daemon.ready(inbox)
        #expect(isSocket(paths.socket))
        let client = try await PropdClient.connect(to: paths.socket)
        #expect(try await client.set(["x.y": 1]) == 1)
        await client.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// A passed descriptor that is not a listening socket stops propd at
    /// start with a clear message (a misconfigured socket unit), instead of a hang.
    @Test func aPassedDescriptorThatIsNotASocketIsRefused() async throws {
        let dir = try ScratchDirectory("bad-fd")
        let paths = DaemonPaths(dir)
        let script = "exec 3</dev/null; LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" \"$@\""
        // Not a Foundation Process: the script replaces fd 3, which may be Foundation's watch on the child.
        let daemon = try DirectChild(
            executable: "/bin/sh", arguments: ["-c", script, PropdLaunch.executable] + paths.arguments,
            environment: PropdLaunch.environment([:]), logPath: paths.log)
        let ended = try await daemon.exit(timeout: .seconds(30))
        #expect(ended == .exited(1))
        #expect(daemon.log.contains("passed descriptor 3 is not a socket"), "\(daemon.log)")
        #expect(!exists(paths.socket))
    }
}
