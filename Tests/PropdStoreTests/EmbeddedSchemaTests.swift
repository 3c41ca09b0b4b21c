import Foundation
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
        let reference = try InspectedDatabase(":memory:")
        for file in try Self.schemaFiles() { try reference.execute(String(decoding: file.bytes, as: UTF8.self)) }
        let query = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'grdb_%' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        let expected = try reference.rows(query, columns: 3)
        let migrated = try InspectedDatabase(dir.databasePath)
        #expect(try migrated.rows(query, columns: 3) == expected)
        let applied = try migrated.strings("SELECT identifier FROM grdb_migrations ORDER BY identifier")
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
