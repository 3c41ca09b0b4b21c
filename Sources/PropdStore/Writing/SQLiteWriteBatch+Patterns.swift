import GRDB
import PropdCore

extension SQLiteWriteBatch {
    /// Scans only the keys under the pattern's literal prefix, as `List` does.
    func keys(matching pattern: KeyPattern) throws(StoreError) -> [Key] {
        try run { db in
            let rows: RowCursor
            if pattern.isExactKey {
                rows = try Row.fetchCursor(db, sql: "SELECT key FROM properties WHERE key = ?", arguments: [pattern.rawValue])
            } else if !pattern.literalPrefix.isEmpty {
                // Keys under `prefix.`: from "prefix." up to (excluding) "prefix/" ('/' follows '.').
                let prefix = pattern.literalPrefix
                rows = try Row.fetchCursor(
                    db, sql: "SELECT key FROM properties WHERE key >= ? AND key < ? ORDER BY key",
                    arguments: [prefix + ".", prefix + "/"])
            } else {
                rows = try Row.fetchCursor(db, sql: "SELECT key FROM properties ORDER BY key")
            }
            var keys: [Key] = []
            while let row = try rows.next() {
                let text: String = row[0]
                guard let key = try? Key(text), pattern.matches(key) else { continue }
                keys.append(key)
            }
            return keys
        }
    }
}
