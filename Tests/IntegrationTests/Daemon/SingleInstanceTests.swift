import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A second propd on the database or the socket of a running one is refused
/// and the first keeps serving (it used to unlink the first one's socket and
/// write the same database with a revision counter of its own).
@Suite struct SingleInstanceTests {
    @Test func aSecondDaemonOnTheSameDatabaseOrSocketIsRefused() async throws {
        let dir = try ScratchDirectory("single")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let first = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await first.ready(inbox)
        let client = try await PropdClient.connect(to: paths.socket)
        try await client.set(["one.a": 1])

        // Same database, another socket.
        let sameDatabase = try PropdLaunch.start(
            ["--socket", dir.file("other.sock"), "--database", paths.database, "--bindings", paths.bindings],
            environment: [:], logPath: dir.file("2.log"))
        #expect(try await sameDatabase.exit(timeout: .seconds(30)) == .exited(1))
        #expect(sameDatabase.log.contains("is in use by another propd (pid \(first.pid)"), "\(sameDatabase.log)")
        #expect(!exists(dir.file("other.sock")))

        // Same socket, another database.
        let sameSocket = try PropdLaunch.start(
            ["--socket", paths.socket, "--database", dir.file("other/propd.db"), "--bindings", paths.bindings],
            environment: [:], logPath: dir.file("3.log"))
        #expect(try await sameSocket.exit(timeout: .seconds(30)) == .exited(1))
        #expect(sameSocket.log.contains("socket \(paths.socket) is in use"), "\(sameSocket.log)")
        #expect(!exists(dir.file("other/propd.db")))

        // The first one still serves on its socket.
        #expect(isSocket(paths.socket))
        let again = try await PropdClient.connect(to: paths.socket)
        #expect(try await again.set(["one.b": 2]) == 2)
        await again.close()
        await client.close()
        first.signal(SIGTERM)
        #expect(try await first.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// After a crash (SIGKILL) the lock is gone with the process and the
    /// stale socket file is replaced: a new propd starts on the same paths.
    @Test func aDaemonThatDiedLeavesNothingThatBlocksTheNext() async throws {
        let dir = try ScratchDirectory("single-crash")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let first = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await first.ready(inbox)
        first.signal(SIGKILL)
        #expect(try await first.exit(timeout: .seconds(30)) == Termination(status: SIGKILL, bySignal: true))
        #expect(isSocket(paths.socket))
        let second = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: dir.file("2.log"))
        try await second.ready(inbox)
        let client = try await PropdClient.connect(to: paths.socket)
        #expect(try await client.set(["x.y": 1]) == 1)
        await client.close()
        second.signal(SIGTERM)
        #expect(try await second.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// The lock is the database file's own: the same file reached through
    /// `..`, a symlink or a hard link is the same database, and a second
    /// daemon on it would hand out the same revisions again.
    @Test(arguments: ["same", "dotdot", "symlink", "hardlink"])
    func everySpellingOfTheDatabaseMeetsTheSameLock(spelling: String) async throws {
        let dir = try ScratchDirectory("single-\(spelling)")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let first = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await first.ready(inbox)
        let client = try await PropdClient.connect(to: paths.socket)
        #expect(try await client.set(["one.a": 1]) == 1)

        let other = try dir.directory("other")
        let spelled: String
        switch spelling {
        case "same": spelled = paths.database
        case "dotdot": spelled = other + "/../db/propd.db"
        case "symlink":
            spelled = other + "/link.db"
            #expect(symlink(paths.database, spelled) == 0)
        default:
            spelled = other + "/hard.db"
            #expect(link(paths.database, spelled) == 0)
        }
        let second = try PropdLaunch.start(
            ["--socket", dir.file("second.sock"), "--database", spelled, "--bindings", paths.bindings],
            environment: [:], logPath: dir.file("2.log"))
        #expect(try await second.exit(timeout: .seconds(30)) == .exited(1))
        #expect(second.log.contains("is in use by another propd"), "\(second.log)")
        #expect(!exists(dir.file("second.sock")))

        // The first one still hands out the next revision, alone.
        #expect(try await client.set(["one.b": 2]) == 2)
        await client.close()
        first.signal(SIGTERM)
        #expect(try await first.exit(timeout: .seconds(30)) == .exited(0))
    }
}
