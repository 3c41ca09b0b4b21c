import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// propctl run by an ordinary user against the system daemon: it finds
/// `/run/propd/propd.sock` when the user has no daemon of their own, and a
/// socket it may not open is explained with the group that grants access.
@Suite(.serialized) struct SystemSocketTests {
    static let enabled = TestUser.canSwitch
    static var propctl: String { PropdProcess.productsDirectory.appendingPathComponent("propctl").path }

    func propctl(as user: TestUser, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
        guard let setpriv = TestUser.setpriv else { throw TestUser.SetupFailure(description: "no setpriv") }
        return try Command.run(
            setpriv, user.setprivPrefix + [Self.propctl] + arguments,
            environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 })
    }

    @Test(.enabled(if: enabled, "needs root, setpriv and useradd to act as other users"))
    func aSocketOfAnotherGroupNamesThatGroup() async throws {
        let a = try TestUser.ensure("propd-test-a")
        let b = try TestUser.ensure("propd-test-b")
        let dir = try ScratchDirectory("socket-group")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        // As propd.socket makes it: mode 0660, the gate is the group (here b's).
        chown(paths.socket, 0, b.gid)
        chmod(paths.socket, 0o660)

        let denied = try propctl(as: a, ["set", "k", "1"], environment: ["PROPD_SOCKET": paths.socket])
        #expect(denied.status == 3, "\(denied.output)")
        #expect(denied.output.contains("is mode 0660, group propd-test-b: members of group propd-test-b may connect"),
            "\(denied.output)")
        #expect(denied.output.contains("sudo usermod -aG propd-test-b propd-test-a"), "\(denied.output)")

        let member = try propctl(as: b, ["set", "k", "1"], environment: ["PROPD_SOCKET": paths.socket])
        #expect(member.status == 0, "\(member.output)")
        daemon.signal(SIGTERM)
        _ = try await daemon.exit(timeout: .seconds(30))
    }

    /// Uses the real /run/propd/propd.sock, so only where no system daemon listens there.
    @Test(.enabled(if: enabled && !exists(SystemSocketTests.systemSocket), "needs root, and no system propd on /run/propd"))
    func fallsBackToTheSystemSocketWhenTheUsersIsAbsent() async throws {
        let a = try TestUser.ensure("propd-test-a")
        let dir = try ScratchDirectory("socket-fallback")
        let createdRunDirectory = !exists("/run/propd")
        if createdRunDirectory { mkdir("/run/propd", 0o755) }
        // A /run/propd left by a root propd started by hand is private
        // (0700); the unit makes it 0750 with the daemon's group. Here the
        // test user must reach the socket: 0755 while the test runs.
        var before = stat()
        let hadMode = stat("/run/propd", &before) == 0
        chmod("/run/propd", 0o755)
        defer {
            unlink(Self.systemSocket)
            if createdRunDirectory {
                rmdir("/run/propd")
            } else if hadMode {
                chmod("/run/propd", before.st_mode & 0o7777)
            }
        }
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            ["--socket", Self.systemSocket, "--database", paths.database, "--bindings", paths.bindings, "--durability", "normal"],
            environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        chmod(Self.systemSocket, 0o666)
        // The user's own runtime directory exists but holds no propd socket.
        let runtime = try dir.directory("runtime", owner: a, mode: 0o700)

        let set = try propctl(as: a, ["set", "from.user", "1"], environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(set.status == 0, "\(set.output)")
        let client = try await PropdClient.connect(to: Self.systemSocket)
        #expect(try await client.get(["from.user"]).first?.value == 1)
        await client.close()

        daemon.signal(SIGTERM)
        _ = try await daemon.exit(timeout: .seconds(30))
        // Neither socket answers now: the hint names the user's default socket.
        unlink(Self.systemSocket)
        let none = try propctl(as: a, ["get", "from.user"], environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(none.status == 3, "\(none.output)")
        #expect(none.output.contains("tried \(runtime)/propd/propd.sock"), "\(none.output)")
    }

    static let systemSocket = "/run/propd/propd.sock"
}
