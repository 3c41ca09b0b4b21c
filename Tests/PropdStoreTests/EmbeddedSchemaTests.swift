import Foundation
import GRDB
import Testing
@testable import PropdStore

/// What the migrator runs is exactly what is in `schema/`.
@Suite struct EmbeddedSchemaTests {
    static let schemaDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema")

    static func schemaFiles() throws -> [(identifier: String, bytes: Data)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: schemaDirectory.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        return try names.map { name in
            (String(name.dropLast(4)), try Data(contentsOf: schemaDirectory.appendingPathComponent(name)))
        }
    }

    @Test func embeddedMigrationsEqualSchemaFilesByteForByte() throws {
        let files = try Self.schemaFiles()
        #expect(!files.isEmpty)
        #expect(Migrations.sqlByIdentifier.map(\.identifier) == files.map(\.identifier))
        for (embedded, file) in zip(Migrations.sqlByIdentifier, files) {
            #expect(Data(embedded.sql.utf8) == file.bytes, "\(file.identifier).sql differs from EmbeddedSchema.swift: run schema/embed-sql.sh")
        }
    }

    @Test func migratedDatabaseHasExactlyTheSchemaOfTheFiles() throws {
        let dir = try TemporaryDirectory()
        _ = try openStore(dir)
        let reference = try DatabaseQueue()
        try reference.write { db in
            for file in try Self.schemaFiles() { try db.execute(sql: String(decoding: file.bytes, as: UTF8.self)) }
        }
        let query = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'grdb_%' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        let expected = try reference.read { db in try Row.fetchAll(db, sql: query) }
        let actual = try DatabaseQueue(path: dir.databasePath).read { db in try Row.fetchAll(db, sql: query) }
        #expect(actual == expected)
        let applied = try DatabaseQueue(path: dir.databasePath).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        }
        #expect(applied == PropertyStore.knownMigrations)
    }

    @Test func reopeningAppliesNothingTwiceAndKeepsData() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            try await store.write(WriteRequest(set: [key("a"): 1]))
        }
        let store = try openStore(dir)
        #expect(store.revision == 1)
        #expect(try store.get([key("a")]).properties.first??.value == 1)
    }
}
