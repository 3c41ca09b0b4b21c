import Foundation
import PropdCore
import PropdStore
import PropdTestSupport
import Testing

/// A database propd refuses is left exactly as it was: not a byte of it
/// written, no `-wal`, `-shm` or `-journal` beside it created or removed.
@Suite struct RefusedFileTests {
    /// Every file of the directory, by name.
    func contents(_ dir: TemporaryDirectory) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
            files[name] = FileManager.default.contents(atPath: dir.path + "/" + name)
        }
        return files
    }

    /// A propd database with properties and history, by file suffix: after
    /// a clean stop, wholly in the main file (`""`); or as a crash leaves it,
    /// the latest writes in the `-wal` beside it.
    func propdDatabase(crashed: Bool) async throws -> [String: Data] {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: 4)
        for round in 0..<6 {
            var values: [Key: JSONValue] = [:]
            for i in 0..<20 { values[key("room.r\(i).temp")] = .string("value \(round) \(i)") }
            try await store.write(WriteRequest(set: values))
            if round == 3 { try store.checkpoint() }
        }
        if crashed {
            // The files as they are while the store is open: what a kill leaves.
            var files: [String: Data] = [:]
            for suffix in ["", "-wal"] {
                guard let data = FileManager.default.contents(atPath: dir.databasePath + suffix) else {
                    throw StoreError.closed
                }
                files[suffix] = data
            }
            return files
        }
        store.close()
        try store.checkpoint()
        try InspectedDatabase(dir.databasePath).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return ["": try #require(FileManager.default.contents(atPath: dir.databasePath))]
    }

    /// Damaged copies of a database, each with a few bytes changed at places
    /// a seeded generator picks (the same every run), in the main file or in
    /// its `-wal`: every copy propd refuses must be left as it was; a copy
    /// it accepts may be written.
    @Test(arguments: [false, true])
    func damagedCopiesThatAreRefusedAreLeftAsTheyWere(crashed: Bool) async throws {
        let original = try await propdDatabase(crashed: crashed)
        var generator = SplitMix(seed: crashed ? 0x5EED_0017 : 0x5EED_0016)
        var refused = 0
        for copy in 0..<200 {
            var files = original
            let suffix = crashed && copy % 3 == 0 ? "-wal" : ""
            var bytes = files[suffix] ?? Data()
            // The first page holds the header and the schema: damage there
            // is what a check must catch before writing; damage elsewhere too.
            let span = copy % 2 == 0 ? min(4096, bytes.count) : bytes.count
            for _ in 0..<(1 + Int(generator.next() % (crashed ? 32 : 4))) {
                let offset = Int(generator.next() % UInt64(span))
                bytes[offset] ^= UInt8(truncatingIfNeeded: 1 + generator.next() % 255)
            }
            files[suffix] = bytes
            let dir = try TemporaryDirectory()
            for (suffix, data) in files { try data.write(to: URL(fileURLWithPath: dir.databasePath + suffix)) }
            let before = contents(dir)
            do {
                let store = try openStore(dir)
                store.close()
            } catch {
                refused += 1
                #expect(contents(dir) == before, "copy \(copy) was written although refused: \(error)")
            }
        }
        // Damage to a clean file is mostly refused (65 of these 200); a crashed
        // one's is mostly accepted, its WAL frames standing in for main pages.
        if !crashed { #expect(refused > 20) }
    }

    /// Each table and index of the schema damaged in turn (its root page
    /// overwritten): whatever the check finds, a refused file is left as it was.
    @Test func eachTableDamagedInTurnIsRefusedUntouchedOrOpens() async throws {
        let original = try await propdDatabase(crashed: false)
        let main = original[""] ?? Data()
        let scratch = try TemporaryDirectory()
        try main.write(to: URL(fileURLWithPath: scratch.databasePath))
        let roots = try InspectedDatabase(scratch.databasePath)
            .rows("SELECT name, rootpage FROM sqlite_master WHERE rootpage > 1", columns: 2)
            .map { (try #require($0[0]), try #require($0[1].flatMap { Int($0) })) }
        #expect(roots.count > 5)
        var refused: [String] = []
        for (name, root) in roots {
            var bytes = main
            let start = (root - 1) * 4096
            guard start + 4096 <= bytes.count else { continue }
            for i in start..<(start + 4096) { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
            let dir = try TemporaryDirectory()
            try bytes.write(to: URL(fileURLWithPath: dir.databasePath))
            let before = contents(dir)
            do {
                let store = try openStore(dir)
                store.close()
            } catch {
                refused.append(name)
                #expect(contents(dir) == before, "\(name) damaged: written although refused: \(error)")
            }
        }
        #expect(refused.contains("history"), "a damaged history is refused: \(refused)")
    }

    /// A crashed database whose main file is damaged where its WAL does not
    /// cover it: the check reads it through the WAL, which takes a `-shm`
    /// beside it; refusing it leaves no `-shm` behind either.
    @Test func aDamagedFileBesideItsWALIsRefusedWithoutAnIndexLeftBeside() async throws {
        // A crashed database whose WAL holds writes after a checkpoint that
        // left the counters' row in the main file (no trim wrote it since).
        let source = try TemporaryDirectory()
        let store = try openStore(source)
        try await store.write(WriteRequest(set: [key("room.temp"): 20]))
        try store.checkpoint()
        try await store.write(WriteRequest(set: [key("room.temp"): 21]))
        var main = try #require(FileManager.default.contents(atPath: source.databasePath))
        let wal = try #require(FileManager.default.contents(atPath: source.databasePath + "-wal"))
        let name = Data("history_horizon".utf8)
        #expect(wal.range(of: name) == nil, "the WAL does not cover the counters' row")
        let found = try #require(main.range(of: name), "the counters' row is in the main file")
        main[found.upperBound - 1] ^= 0x01
        let dir = try TemporaryDirectory()
        try main.write(to: URL(fileURLWithPath: dir.databasePath))
        try wal.write(to: URL(fileURLWithPath: dir.databasePath + "-wal"))
        let before = contents(dir)
        #expect(throws: StoreError.corrupt(path: dir.databasePath, message: "the meta table lacks the revision counters")) {
            try openStore(dir)
        }
        #expect(contents(dir) == before)
    }

    /// A leftover rollback journal beside a file propd then refuses (not
    /// propd's, or from a newer propd) is not rolled back into it either.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func aJournalBesideARefusedFileIsNotPlayedBack() throws {
        let dir = try TemporaryDirectory()
        try InspectedDatabase(dir.databasePath).execute(
            "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)")
        try interruptWrite(dir.databasePath)
        #expect(FileManager.default.fileExists(atPath: dir.databasePath + "-journal"))
        let before = contents(dir)
        #expect(throws: StoreError.notAPropdDatabase(path: dir.databasePath)) { try openStore(dir) }
        #expect(contents(dir) == before)
    }

    /// A write cut off inside its transaction: SQLite has spilled pages to
    /// the file and the rollback journal is hot.
    func interruptWrite(_ path: String) throws {
        let (status, output) = try Command.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sqlite3, os, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('PRAGMA journal_mode=DELETE')
                c.execute('BEGIN')
                c.execute('PRAGMA cache_spill=1')
                c.execute('CREATE TABLE t(x)')
                for i in range(200): c.execute('INSERT INTO t VALUES(zeroblob(10000))')
                os._exit(0)
                """,
                path,
            ])
        #expect(status == 0, "\(output)")
    }
}
