import Foundation
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A database whose creation was cut off (a power cut before the commit)
/// leaves a hot rollback journal: propd lets SQLite roll it back, as SQLite
/// intends, and starts on the database as it was before that write.
@Suite struct LeftoverJournalTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func aHotJournalIsRolledBackAndPropdStarts() async throws {
        let dir = try ScratchDirectory("hot-journal")
        let paths = DaemonPaths(dir)
        try dir.directory("db", mode: 0o755)
        // A writer that dies inside its first transaction, after SQLite
        // spilled pages to the database file: the journal stays, hot.
        let interrupted = try Spawned(
            executable: "/usr/bin/python3",
            arguments: [
                "-c",
                """
                import sqlite3, os, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('PRAGMA journal_mode=DELETE')
                c.execute('BEGIN')
                c.execute('CREATE TABLE t(x)')
                c.execute('PRAGMA cache_spill=1')
                for i in range(200): c.execute('INSERT INTO t VALUES(zeroblob(10000))')
                os._exit(0)
                """,
                paths.database,
            ],
            environment: PropdLaunch.environment([:]), logPath: dir.file("interrupted.log"))
        #expect(try await interrupted.exit(timeout: .seconds(30)) == .exited(0), "\(interrupted.log)")
        #expect(exists(paths.database + "-journal"))

        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        let socket = try RawSocket(path: paths.socket)
        #expect(socket.call("io.propd.Set", ["values": ["after.cut": 1]]))
        #expect(try await socket.receive()?["parameters"]?["revision"] == 1)
        #expect(!exists(paths.database + "-journal"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
