public import PropdCore

extension SQLiteWriteBatch {
    func registerCommand(_ command: Key, at revision: Revision) throws(StoreError) -> Bool {
        try run {
            let insert = try connection.statement(
                "INSERT INTO commands (name, revision) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING")
            try insert.bind(1, command.rawValue)
            try insert.bind(2, revision.rawValue)
            return try insert.execute() > 0
        }
    }

    func commandNames() throws(StoreError) -> [Key] {
        try run { try StoredTables.commandNames(connection, path: path) }
    }
}

extension PropertyStore {
    /// Every command ever served or executed, sorted by name, from the committed state.
    public func commandNames() throws(StoreError) -> [Key] {
        try readConnections.read { connection in try StoredTables.commandNames(connection, path: path) }
    }
}
