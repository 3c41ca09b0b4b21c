import Foundation
import PropdCore
import PropdStore
import Testing

/// Opening a database written by an earlier propd.
@Suite struct MigrationTests {
    /// A version-2 database (001 + 002, as GRDB's migrator records them) with
    /// the rows propd 2 wrote for: a (set 1 compacted away, set 2), b (set,
    /// delete, set), c (set, delete, declared again as a derived key without
    /// a value), d (declared, then in error).
    static func versionTwoDatabase(_ path: String) throws {
        let database = try InspectedDatabase(path)
        try database.execute("BEGIN")
        for file in try EmbeddedSchemaTests.schemaFiles() where file.identifier < "003" {
            try database.execute(String(decoding: file.bytes, as: UTF8.self))
        }
        try database.execute("""
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('001_initial'), ('002_binding_files');
            INSERT INTO properties (key, value, revision, created, error) VALUES
                ('a', '2', 2, 1, NULL), ('b', '5', 5, 5, NULL), ('c', NULL, 9, 9, NULL), ('d', NULL, 6, 4, 'boom');
            INSERT INTO history (revision, key, kind, value, error) VALUES
                (1, 'b', 'set', '1', NULL), (2, 'a', 'set', '2', NULL), (3, 'b', 'delete', NULL, NULL),
                (5, 'b', 'set', '5', NULL), (6, 'd', 'error', NULL, 'boom'), (7, 'c', 'set', '7', NULL),
                (8, 'c', 'delete', NULL, NULL);
            UPDATE meta SET value = 9 WHERE name = 'revision';
            UPDATE meta SET value = 1 WHERE name = 'history_horizon';
            COMMIT;
            """)
    }

    @Test func aVersionTwoDatabaseWithHistoryMigratesToChains() async throws {
        let dir = try TemporaryDirectory()
        try Self.versionTwoDatabase(dir.databasePath)
        let store = try openStore(dir)
        #expect(store.revision == 9)
        #expect(try store.history(of: key("a")) == [Event(key: "a", kind: .set, value: 2, revision: 2)])
        #expect(try store.history(of: key("b")) == [
            Event(key: "b", kind: .set, value: 5, revision: 5),
            Event(key: "b", kind: .delete, revision: 3),
            Event(key: "b", kind: .set, value: 1, revision: 1),
        ])
        #expect(try store.history(of: key("c")).map(\.revision) == [8, 7])
        #expect(try store.history(of: key("d")) == [Event(key: "d", kind: .error, revision: 6, error: "boom")])
        #expect(try store.history(of: key("b"), limit: 1, before: 5).map(\.revision) == [3])
        #expect(throws: StoreError.compacted(since: 0, oldest: 2)) { try store.changes(after: 0) }
        #expect(try store.changes(after: 1).changeSets == [
            ChangeSet(revision: 2, changes: [.set(key("a"), 2)]),
            ChangeSet(revision: 3, changes: [.delete(key("b"))]),
            ChangeSet(revision: 5, changes: [.set(key("b"), 5)]),
            ChangeSet(revision: 6, changes: [Change(key: key("d"), kind: .error("boom"))]),
            ChangeSet(revision: 7, changes: [.set(key("c"), 7)]),
            ChangeSet(revision: 8, changes: [.delete(key("c"))]),
        ])
        try expectIntactHistoryChains(dir)

        // The chains go on from what was migrated.
        try await store.write { tx in try tx.set(key("c"), 10) }
        try await store.write(WriteRequest(set: [key("a"): 11], delete: [key("b")]))
        #expect(try store.history(of: key("c")).map(\.revision) == [10, 8, 7])
        #expect(try store.history(of: key("a")).map(\.revision) == [11, 2])
        #expect(try store.history(of: key("b")).map(\.revision) == [11, 5, 3, 1])
        try expectIntactHistoryChains(dir)

        let database = try InspectedDatabase(dir.databasePath)
        // The latest migration, 005_commands, records 5.
        #expect(try database.int64("SELECT value FROM meta WHERE name = 'schema_version'") == 5)
        #expect(try database.strings("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'history_by_key'") == [])
    }
}
