import Foundation

/// What is at a database path before propd writes anything there. Checked
/// through a read-only SQLite connection that creates no file either (no
/// `-wal`, no `-shm`), so that a foreign, damaged or newer file is refused
/// exactly as it was.
enum DatabaseInspection {
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)
    /// The migration that gave history rows ids (`schema/006_history_row_ids.sql`).
    static let historyRowIDsMigration = "006_history_row_ids"

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
        let files = FileManager.default
        if files.fileExists(atPath: path + "-wal"), !files.fileExists(atPath: path + "-shm") {
            // A WAL without its index (`-shm`): no process has it open, and
            // a read-only open would create the index beside the file. The
            // check reads a copy instead (a WAL left by a crash keeps its
            // index: this is a database copied or restored with its WAL).
            try PrivateCopy.inspect(path, with: "-wal", besideFile: "a write-ahead log without its index") {
                copy throws(StoreError) in
                try check(inspecting: copy, naming: path)
            }
            return
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
        // `immutable` reads it without creating `-shm`. With a WAL and its
        // index (another process has it open, or it crashed), a plain
        // read-only open uses both and creates nothing (`check(path:)`
        // copies a WAL that has no index).
        let hasWAL = FileManager.default.fileExists(atPath: inspected + "-wal")
        let encoded = inspected.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        let uri = "file:\(encoded)?\(hasWAL ? "mode=ro" : "immutable=1")"
        let connection = try SQLiteConnection(path: uri, mode: .readOnly(uri: true))

        let tables = try connection.strings(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if tables.isEmpty { return [] }
        guard tables.contains("grdb_migrations") else { throw StoreError.notAPropdDatabase(path: path) }
        let applied = try connection.strings("SELECT identifier FROM grdb_migrations")
        // What opening for writing checks next, checked here first, read-only:
        // a damaged file is refused before anything is written to it.
        if !applied.isEmpty {
            guard tables.contains("meta") else {
                throw StoreError.corrupt(path: path, message: "the meta table is missing")
            }
            let counters = try connection.strings(
                "SELECT name FROM meta WHERE name IN ('revision', 'history_horizon') AND typeof(value) = 'integer'")
            guard Set(counters) == ["revision", "history_horizon"] else {
                throw StoreError.corrupt(path: path, message: "the meta table lacks the revision counters")
            }
            // The revision opening starts from, read as opening reads it
            // (a damaged history fails here rather than after the file was
            // put in WAL mode).
            if tables.contains("history") {
                // Before 006_history_row_ids, history had no ids but revisions.
                let sql =
                    applied.contains(Self.historyRowIDsMigration)
                    ? PropertyStore.committedRevisionSQL : "SELECT max(revision) FROM history"
                _ = try connection.prepare(sql).int64()
            }
        }
        return applied
    }
}
