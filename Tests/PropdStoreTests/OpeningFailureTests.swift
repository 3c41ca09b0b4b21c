import Foundation
import PropdCore
import PropdStore
import Testing

/// Files propd must refuse, each with a named error and left byte for byte as it was.
@Suite struct OpeningFailureTests {
    func contents(_ dir: TemporaryDirectory) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
            files[name] = FileManager.default.contents(atPath: dir.path + "/" + name)
        }
        return files
    }

    @Test func aFileThatIsNotSQLite() throws {
        let dir = try TemporaryDirectory()
        try Data("these are my notes, not a database\n".utf8).write(to: URL(fileURLWithPath: dir.databasePath))
        let before = contents(dir)
        #expect(throws: StoreError.notADatabase(path: dir.databasePath)) { try openStore(dir) }
        #expect(contents(dir) == before)
    }

    @Test func anSQLiteDatabaseThatIsNotPropds() throws {
        let dir = try TemporaryDirectory()
        try InspectedDatabase(dir.databasePath).execute(
            "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)")
        let before = contents(dir)
        #expect(throws: StoreError.notAPropdDatabase(path: dir.databasePath)) { try openStore(dir) }
        #expect(contents(dir) == before)
    }

    @Test func aPropdDatabaseWithoutItsCountersIsRefusedUntouched() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            try await store.write(WriteRequest(set: [key("a"): 1]))
            store.close()
            try store.checkpoint()
        }
        try InspectedDatabase(dir.databasePath).execute("DELETE FROM meta WHERE name = 'history_horizon'")
        let before = contents(dir)
        #expect(openingError(dir) == .corrupt(path: dir.databasePath, message: "the meta table lacks the revision counters"))
        // Not a byte written, no -wal or -shm created.
        #expect(contents(dir) == before)
    }

    @Test func aDatabaseFromANewerPropd() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            try await store.write(WriteRequest(set: [key("a"): 1]))
        }
        try InspectedDatabase(dir.databasePath).execute("INSERT INTO grdb_migrations (identifier) VALUES ('002_future')")
        let before = contents(dir)
        let expected = StoreError.newerSchema(
            path: dir.databasePath, unknownMigrations: ["002_future"], knownMigrations: PropertyStore.knownMigrations)
        #expect(openingError(dir) == expected)
        #expect(contents(dir) == before)
    }

    @Test func aCorruptDatabase() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            for i in 0..<50 {
                try await store.write(WriteRequest(set: [key("k.\(i)"): .string(String(repeating: "x", count: 500))]))
            }
        }
        // Move everything into the main file, so that damaging it damages the data.
        try InspectedDatabase(dir.databasePath).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        // Keep the header page, overwrite every other page with garbage.
        var bytes = try #require(FileManager.default.contents(atPath: dir.databasePath))
        #expect(bytes.count > 8192)
        for i in 4096..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try bytes.write(to: URL(fileURLWithPath: dir.databasePath))
        for name in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir.databasePath + name) }
        let before = contents(dir)
        let error = openingError(dir)
        if case .corrupt(let path, _) = error {
            #expect(path == dir.databasePath)
        } else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
        }
        #expect(contents(dir) == before)
    }

    @Test func aMissingDirectory() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/no/such/dir/propd.db"
        let error = #expect(throws: StoreError.self) { try PropertyStore(path: path) }
        if case .cannotOpen(let p, _) = error { #expect(p == path) } else { Issue.record("got \(String(describing: error))") }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    func openingError(_ dir: TemporaryDirectory) -> StoreError? {
        do {
            _ = try openStore(dir)
            return nil
        } catch {
            return error
        }
    }
}
