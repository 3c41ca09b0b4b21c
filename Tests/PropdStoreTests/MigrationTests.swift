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
        // The latest migration, 006_history_row_ids, records 6.
        #expect(try database.int64("SELECT value FROM meta WHERE name = 'schema_version'") == 6)
        #expect(try database.strings("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'history_by_key'") == [])
    }

    /// A version-5 database whose history has two rows at revision 2 (a Set
    /// and the derived value it caused) and a chain across revisions.
    @Test func aVersionFiveHistoryGetsIdsInRevisionAndKeyOrderAndKeepsItsChains() async throws {
        let dir = try TemporaryDirectory()
        let database = try InspectedDatabase(dir.databasePath)
        try database.execute("BEGIN")
        let files = try EmbeddedSchemaTests.schemaFiles().filter { $0.identifier < "006" }
        for file in files { try database.execute(String(decoding: file.bytes, as: UTF8.self)) }
        try database.execute("""
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES \(files.map { "('\($0.identifier)')" }.joined(separator: ", "));
            INSERT INTO properties (key, value, revision, created, error) VALUES
                ('src', '2', 2, 1, NULL), ('derived', '4', 2, 2, NULL);
            INSERT INTO history (revision, key, kind, value, error, previous) VALUES
                (1, 'src', 'set', '1', NULL, NULL), (2, 'src', 'set', '2', NULL, 1),
                (2, 'derived', 'set', '4', NULL, NULL);
            UPDATE meta SET value = 2 WHERE name = 'revision';
            COMMIT;
            """)
        let store = try openStore(dir)
        #expect(store.revision == 2)
        #expect(try database.rows("SELECT id, key FROM history ORDER BY id", columns: 2) == [
            ["\(1 << 18)", "src"], ["\(2 << 18)", "derived"], ["\(2 << 18 | 1)", "src"],
        ])
        #expect(try store.history(of: key("src")).map(\.revision) == [2, 1])
        #expect(try store.changes(after: 0).changeSets == [
            ChangeSet(revision: 1, changes: [.set(key("src"), 1)]),
            ChangeSet(revision: 2, changes: [.set(key("derived"), 4), .set(key("src"), 2)]),
        ])
        try await store.write(WriteRequest(set: [key("src"): 3]))
        #expect(try store.history(of: key("src")).map(\.revision) == [3, 2, 1])
        try expectIntactHistoryChains(dir)
    }
}
