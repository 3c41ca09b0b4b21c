import PropdCore

extension SQLiteWriteBatch {
    /// The mark goes away with the binding (`removeBinding`).
    func markFileBinding(_ key: Key, file: String) throws(StoreError) {
        try execute(
            "INSERT INTO binding_files (key, file) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET file = excluded.file",
            key.rawValue, file)
    }

    func unmarkFileBinding(_ key: Key) throws(StoreError) {
        try execute("DELETE FROM binding_files WHERE key = ?1", key.rawValue)
    }

    func fileBindings() throws(StoreError) -> [Key: String] {
        try run {
            var marks: [Key: String] = [:]
            try connection.statement("SELECT key, file FROM binding_files").forEachRow { row in
                marks[try PropertyRow.key(row, 0, path: path)] = try PropertyRow.text(row, 1, "file", path: path)
                return true
            }
            return marks
        }
    }
}
