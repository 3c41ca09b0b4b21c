import PropdCore

extension SQLiteWriteBatch {
    /// Scans only the keys under the pattern's literal prefix, as `List` does.
    func keys(matching pattern: KeyPattern) throws(StoreError) -> [Key] {
        try run {
            let select = try connection.statement("SELECT key FROM properties", keysIn: "key", matching: pattern)
            var keys: [Key] = []
            try select.forEachRow { row in
                if let text = row.text(0), let key = try? Key(text), pattern.matches(key) { keys.append(key) }
                return true
            }
            return keys
        }
    }
}
