import PropdCore

extension SQLiteWriteBatch {
    func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        try run { try StoredTables.expiringKeys(connection, path: path) }
    }

    func makePermanent(_ key: Key) throws(StoreError) {
        try execute("UPDATE properties SET expires = NULL WHERE key = ?1 AND expires IS NOT NULL", key.rawValue)
    }

    func clearError(_ key: Key) throws(StoreError) {
        try execute("UPDATE properties SET error = NULL WHERE key = ?1", key.rawValue)
        // A key without a value loses its head in `properties` with its error.
        heads.forget(key.rawValue)
    }
}
