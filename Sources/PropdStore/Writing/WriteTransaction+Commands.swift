import GRDB
public import PropdCore

extension WriteTransaction {
    /// Records `command` as a command (see `schema/005_commands.sql`);
    /// returns whether it is new.
    @discardableResult
    public mutating func registerCommand(_ command: Key) throws(StoreError) -> Bool {
        let revision = self.revision.rawValue
        return try run { db in
            try db.cachedStatement(sql: "INSERT INTO commands (name, revision) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING")
                .execute(arguments: [command.rawValue, revision])
            return db.changesCount > 0
        }
    }

    /// Every command, as this transaction sees them.
    public func commandNames() throws(StoreError) -> [Key] {
        try run { db in try CommandTable.names(db, path: path) }
    }
}

extension PropertyStore {
    /// Every command ever served or executed, sorted by name, from the committed state.
    public func commandNames() throws(StoreError) -> [Key] {
        try read { db in try CommandTable.names(db, path: path) }
    }
}

enum CommandTable {
    static func names(_ db: Database, path: String) throws -> [Key] {
        try Row.fetchAll(db, sql: "SELECT name FROM commands ORDER BY name").map { try PropertyRow.key($0, 0, path: path) }
    }
}
