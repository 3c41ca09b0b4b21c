/// The schema migrations this build knows, applied in order, each recorded
/// in `grdb_migrations` once applied (the table, and its name, are those of
/// the migrator of earlier propd builds, so their files open unchanged).
enum Migrations {
    /// Identifiers in order (`001_initial`, ...): the file names of `schema/`.
    static var identifiers: [String] { embeddedMigrations.map(\.identifier) }

    /// The SQL text applied for each identifier, exactly as embedded.
    static var sqlByIdentifier: [(identifier: String, sql: String)] { embeddedMigrations }

    /// Applies the migrations `connection`'s database lacks, in order, each
    /// in a transaction of its own with its record.
    static func migrate(_ connection: SQLiteConnection) throws {
        let tables = try connection.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")
        if tables.isEmpty {
            try connection.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        let applied = Set(try connection.strings("SELECT identifier FROM grdb_migrations"))
        for migration in embeddedMigrations where !applied.contains(migration.identifier) {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try connection.execute(migration.sql)
                let record = try connection.prepare("INSERT INTO grdb_migrations (identifier) VALUES (?1)")
                try record.bind(1, migration.identifier)
                try record.execute()
                try connection.execute("COMMIT")
            } catch {
                // SQLite may have rolled back already; the migration's error is the one to report.
                if connection.isInsideTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }
}
