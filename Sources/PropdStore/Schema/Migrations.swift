import GRDB

/// The schema migrations this build knows, applied in order by GRDB's
/// migrator, which records each applied identifier in `grdb_migrations`.
enum Migrations {
    /// Identifiers in order (`001_initial`, ...): the file names of `schema/`.
    static var identifiers: [String] { embeddedMigrations.map(\.identifier) }

    /// The SQL text the migrator runs for each identifier, exactly as embedded.
    static var sqlByIdentifier: [(identifier: String, sql: String)] { embeddedMigrations }

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in embeddedMigrations {
            let sql = migration.sql
            migrator.registerMigration(migration.identifier) { db in
                try db.execute(sql: sql)
            }
        }
        return migrator
    }
}
