import Foundation
import PropdTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A database the real propd refuses to start on is left as it was: its
/// bytes, and which of `-wal`, `-shm` and `-journal` exist beside it.
/// (propd's own lock file, `<database>.lock`, is not the database's.)
@Suite struct RefusedDatabaseTests {
    static let python = "/usr/bin/python3"

    /// How each refused file is made from a database propd wrote and stopped
    /// cleanly (argv[1] is its path), and what propd's refusal says.
    static let cases: [(name: String, script: String, says: String)] = [
        (
            "newer schema",
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.execute("INSERT INTO grdb_migrations VALUES ('999_future')"); c.commit(); c.close()
            """,
            "newer propd"
        ),
        (
            "damaged history",
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            root, size = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'history'").fetchone()[0], c.execute("PRAGMA page_size").fetchone()[0]
            c.close()
            with open(sys.argv[1], 'r+b') as f:
                f.seek((root - 1) * size); f.write(bytes((i * 31) % 256 for i in range(size)))
            """,
            "corrupt"
        ),
        (
            "foreign, with a hot journal",
            """
            import sqlite3, os, sys
            for suffix in ('', '-wal', '-shm'):
                if os.path.exists(sys.argv[1] + suffix): os.remove(sys.argv[1] + suffix)
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('PRAGMA journal_mode=DELETE')
            c.execute('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)')
            c.execute('BEGIN'); c.execute('PRAGMA cache_spill=1'); c.execute('CREATE TABLE t(x)')
            for i in range(200): c.execute('INSERT INTO t VALUES(zeroblob(10000))')
            os._exit(0)
            """,
            "propd did not create"
        ),
        (
            "not SQLite",
            """
            import sys
            open(sys.argv[1], 'w').write('these are my notes, not a database\\n')
            """,
            "not an SQLite database"
        ),
    ]

    /// The database's files by name: the file itself and its SQLite siblings.
    func databaseFiles(_ paths: DaemonPaths) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let data = FileManager.default.contents(atPath: paths.database + suffix) { files[suffix] = data }
        }
        return files
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python)))
    func refusedDatabasesAreLeftAsTheyWere() async throws {
        for (name, script, says) in Self.cases {
            let dir = try ScratchDirectory("refused-db")
            let paths = DaemonPaths(dir)
            let inbox = try NotifyInbox(path: dir.file("notify.sock"))
            let writer = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
            try await writer.ready(inbox)
            let socket = try RawSocket(path: paths.socket)
            for i in 0..<30 {
                #expect(socket.call("io.propd.Set", ["values": [.init("room.r\(i % 10)"): .integer(Int64(i))]]))
                #expect(try await socket.receive()?["error"] == nil)
            }
            writer.signal(SIGTERM)
            #expect(try await writer.exit(timeout: .seconds(30)) == .exited(0))

            let made = try Command.run(Self.python, ["-c", script, paths.database])
            #expect(made.status == 0, "\(name): \(made.output)")
            let before = databaseFiles(paths)
            let refused = try PropdLaunch.start(paths.arguments, environment: [:], logPath: dir.file("refused.log"))
            #expect(try await refused.exit(timeout: .seconds(30)) == .exited(1), "\(name): \(refused.log)")
            #expect(refused.log.contains(says), "\(name): \(refused.log)")
            #expect(databaseFiles(paths) == before, "\(name): the refused database was changed")
        }
    }
}
