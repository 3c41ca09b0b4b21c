import Foundation
import GRDB

/// What is at a database path before propd writes anything there: checked
/// read-only, so that a foreign, damaged or newer file is refused untouched.
enum DatabaseInspection {
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    /// Throws when the file must not be opened for writing; returns quietly
    /// for a missing or empty file (a new database) and for propd's own.
    static func check(path: String) throws(StoreError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw .cannotOpen(path: path, message: "the file cannot be read")
            }
            return
        }
        let header = (try? handle.read(upToCount: sqliteHeader.count)) ?? Data()
        try? handle.close()
        if header.isEmpty { return }
        guard Array(header) == sqliteHeader else { throw .notADatabase(path: path) }

        var configuration = Configuration()
        configuration.readonly = true
        let applied: [String]
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            applied = try queue.read { db -> [String] in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                if tables.isEmpty { return [] }
                guard tables.contains("grdb_migrations") else { throw StoreError.notAPropdDatabase(path: path) }
                return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(opening: error, path: path)
        }
        let known = Migrations.identifiers
        let unknown = applied.filter { !known.contains($0) }.sorted()
        if !unknown.isEmpty {
            throw .newerSchema(path: path, unknownMigrations: unknown, knownMigrations: known)
        }
    }
}
