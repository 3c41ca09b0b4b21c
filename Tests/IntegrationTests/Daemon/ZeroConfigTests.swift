import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `propd` with no flags and no config, as an ordinary user: the contract's
/// default paths, directories created 0700 and owned by that user.
/// As root the daemon runs as the test user `propd-test-a` (setpriv);
/// otherwise as the current user, with HOME and XDG_* in a scratch directory.
@Suite struct ZeroConfigTests {
    struct Who {
        var user: TestUser?
        var uid: UInt32
        var gid: UInt32
    }

    static func who() throws -> Who {
        if TestUser.isRoot {
            let user = try TestUser.ensure("propd-test-a")
            return Who(user: user, uid: user.uid, gid: user.gid)
        }
        return Who(user: nil, uid: getuid(), gid: getgid())
    }

    @Test(.enabled(if: !TestUser.isRoot || TestUser.canSwitch, "as root this needs setpriv and useradd"))
    func xdgDefaults() async throws {
        let who = try Self.who()
        let dir = try ScratchDirectory("zero")
        let home = try dir.directory("home", owner: who.user)
        let runtime = try dir.directory("run", owner: who.user)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            [], environment: ["HOME": home, "XDG_RUNTIME_DIR": runtime, "NOTIFY_SOCKET": inbox.path], user: who.user,
            logPath: dir.file("propd.log"))
        let ready = try #require(try await daemon.ready(inbox).last)

        let socket = runtime + "/propd/propd.sock"
        let database = home + "/.local/state/propd/propd.db"
        #expect(ready.contains("serving \(socket):"), "\(ready)")
        #expect(isSocket(socket))
        #expect(exists(database))
        #expect(ownership(database)?.uid == who.uid)
        for created in [runtime + "/propd", home + "/.local", home + "/.local/state", home + "/.local/state/propd"] {
            let owner = try #require(ownership(created), "\(created) was not created")
            #expect(owner.uid == who.uid && owner.mode == 0o700, "\(created): \(owner)")
        }
        // The bindings directory is only read, never created.
        #expect(!exists(home + "/.config/propd"))

        let client = try await PropdClient.connect(to: socket)
        #expect(try await client.set(["zero.config": true]) == 1)
        await client.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))

        // Started again the same way, it finds its data.
        let again = try PropdLaunch.start(
            [], environment: ["HOME": home, "XDG_RUNTIME_DIR": runtime, "NOTIFY_SOCKET": inbox.path], user: who.user,
            logPath: dir.file("propd-2.log"))
        try await again.ready(inbox)
        let second = try await PropdClient.connect(to: socket)
        #expect(try await second.get(["zero.config"]).first?.value == true)
        await second.close()
        again.signal(SIGTERM)
        #expect(try await again.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// Without XDG_RUNTIME_DIR the socket goes to /tmp/propd-$UID; with
    /// XDG_STATE_HOME the database goes there. Root only: the /tmp path is
    /// shared, so it is used by the test user alone, never by whoever runs the tests.
    @Test(.enabled(if: TestUser.canSwitch, "needs root, setpriv and useradd (uses the shared /tmp/propd-$UID)"))
    func tmpSocketWithoutARuntimeDirectory() async throws {
        let user = try TestUser.ensure("propd-test-a")
        let dir = try ScratchDirectory("zero-tmp")
        let home = try dir.directory("home", owner: user)
        let state = try dir.directory("state", owner: user)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let tmpDirectory = "/tmp/propd-\(user.uid)"
        defer { try? FileManager.default.removeItem(atPath: tmpDirectory) }
        let daemon = try PropdLaunch.start(
            [], environment: ["HOME": home, "XDG_STATE_HOME": state, "NOTIFY_SOCKET": inbox.path], user: user,
            logPath: dir.file("propd.log"))
        try await daemon.ready(inbox)
        #expect(isSocket(tmpDirectory + "/propd.sock"))
        #expect(ownership(tmpDirectory)?.uid == user.uid)
        #expect(ownership(tmpDirectory)?.mode == 0o700)
        #expect(exists(state + "/propd/propd.db"))
        #expect(!exists(home + "/.local"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// A socket directory another user prepared (the /tmp squatting attack)
    /// is refused, and propd does not start.
    @Test(.enabled(if: TestUser.canSwitch, "needs root, setpriv and useradd"))
    func aSocketDirectoryOwnedByAnotherUserIsRefused() async throws {
        let user = try TestUser.ensure("propd-test-a")
        let other = try TestUser.ensure("propd-test-b")
        let dir = try ScratchDirectory("zero-squat")
        let home = try dir.directory("home", owner: user)
        let runtime = try dir.directory("run", owner: user, mode: 0o755)
        try dir.directory("run/propd", owner: other, mode: 0o777)
        let daemon = try PropdLaunch.start(
            [], environment: ["HOME": home, "XDG_RUNTIME_DIR": runtime], user: user, logPath: dir.file("propd.log"))
        let ended = try await daemon.exit(timeout: .seconds(30))
        #expect(ended == .exited(1))
        #expect(daemon.log.contains("belongs to uid \(other.uid)"), "\(daemon.log)")
        #expect(!exists(runtime + "/propd/propd.sock"))
    }
}
