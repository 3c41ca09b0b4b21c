import GRDB
public import PropdCore

extension SQLiteWriteBatch {
    func registerCommand(_ command: Key, at revision: Revision) throws(StoreError) -> Bool {
        try run { db in
            try db.cachedStatement(sql: "INSERT INTO commands (name, revision) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING")
                .execute(arguments: [command.rawValue, revision.rawValue])
            return db.changesCount > 0
        }
    }

    func commandNames() throws(StoreError) -> [Key] {
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
