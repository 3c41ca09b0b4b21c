import Foundation
import GRDB
import GRDBSQLite

/// What is at a database path before propd writes anything there. Checked
/// through a read-only SQLite connection that creates no file either (no
/// `-wal`, no `-shm`), so that a foreign, damaged or newer file is refused
/// exactly as it was.
enum DatabaseInspection {
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    /// Throws when the file must not be opened for writing; returns quietly
    /// for a missing or empty file (a new database) and for propd's own.
    static func check(path: String) throws(StoreError) {
        if FileManager.default.fileExists(atPath: path + "-journal") {
            // What the file is once its journal is rolled back is checked on
            // a copy first: a file that is then refused stays as it was.
            try LeftoverJournal.inspectRolledBackCopy(of: path) { copy throws(StoreError) in
                try check(inspecting: copy, naming: path)
            }
            try LeftoverJournal.rollBack(path: path)
        }
        try check(inspecting: path, naming: path)
    }

    /// Checks the file at `inspected`, naming `path` in its errors (the same
    /// file, or a copy of it).
    private static func check(inspecting inspected: String, naming path: String) throws(StoreError) {
        guard let handle = FileHandle(forReadingAtPath: inspected) else {
            if FileManager.default.fileExists(atPath: inspected) {
                throw .cannotOpen(path: path, message: "the file cannot be read")
            }
            return
        }
        let header = (try? handle.read(upToCount: sqliteHeader.count)) ?? Data()
        try? handle.close()
        if header.isEmpty { return }
        guard Array(header) == sqliteHeader else { throw .notADatabase(path: path) }

        let applied: [String]
        do {
            applied = try appliedMigrations(inspecting: inspected, naming: path)
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

    /// The migrations recorded in the file; `[]` for a database without tables.
    private static func appliedMigrations(inspecting inspected: String, naming path: String) throws -> [String] {
        // Without a WAL there is nothing but the main file to read, and
        // `immutable` reads it without creating `-shm`. With a WAL (another
        // process has it open, or it crashed), a plain read-only open uses it.
        let hasWAL = FileManager.default.fileExists(atPath: inspected + "-wal")
        let encoded = inspected.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        let uri = "file:\(encoded)?\(hasWAL ? "mode=ro" : "immutable=1")"
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        let code = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard code == SQLITE_OK, let connection else { throw failure(connection, code) }

        let tables = try strings(
            connection, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if tables.isEmpty { return [] }
        guard tables.contains("grdb_migrations") else { throw StoreError.notAPropdDatabase(path: path) }
        let applied = try strings(connection, "SELECT identifier FROM grdb_migrations")
        // What opening for writing checks next, checked here first, read-only:
        // a damaged file is refused before anything is written to it.
        if !applied.isEmpty {
            guard tables.contains("meta") else {
                throw StoreError.corrupt(path: path, message: "the meta table is missing")
            }
            let counters = try strings(
                connection, "SELECT name FROM meta WHERE name IN ('revision', 'history_horizon') AND typeof(value) = 'integer'")
            guard Set(counters) == ["revision", "history_horizon"] else {
                throw StoreError.corrupt(path: path, message: "the meta table lacks the revision counters")
            }
            // The revision opening starts from, read as opening reads it
            // (a damaged history fails here rather than after the file was
            // put in WAL mode).
            if tables.contains("history") {
                _ = try strings(connection, PropertyStore.committedRevisionSQL)
            }
        }
        return applied
    }

    private static func strings(_ connection: OpaquePointer, _ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        var code = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(connection, code) }
        var result: [String] = []
        while true {
            code = sqlite3_step(statement)
            if code == SQLITE_DONE { return result }
            guard code == SQLITE_ROW else { throw failure(connection, code) }
            if let text = sqlite3_column_text(statement, 0) {
                result.append(String(cString: text))
            }
        }
    }

    private static func failure(_ connection: OpaquePointer?, _ code: Int32) -> DatabaseError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
    }
}
