import PropdCore

extension SQLiteWriteBatch {
    /// Scans only the keys under the pattern's literal prefix, as `List` does.
    func keys(matching pattern: KeyPattern) throws(StoreError) -> [Key] {
        try run {
            let select: SQLiteStatement
            if pattern.isExactKey {
                select = try connection.statement("SELECT key FROM properties WHERE key = ?1")
                try select.bind(1, pattern.rawValue)
            } else if !pattern.literalPrefix.isEmpty {
                // Keys under `prefix.`: from "prefix." up to (excluding) "prefix/" ('/' follows '.').
                let prefix = pattern.literalPrefix
                select = try connection.statement("SELECT key FROM properties WHERE key >= ?1 AND key < ?2 ORDER BY key")
                try select.bind(1, prefix + ".")
                try select.bind(2, prefix + "/")
            } else {
                select = try connection.statement("SELECT key FROM properties ORDER BY key")
            }
            var keys: [Key] = []
            try select.forEachRow { row in
                if let text = row.text(0), let key = try? Key(text), pattern.matches(key) { keys.append(key) }
                return true
            }
            return keys
        }
    }
}
