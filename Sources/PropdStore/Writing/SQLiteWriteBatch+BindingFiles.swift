import GRDB
import PropdCore

extension SQLiteWriteBatch {
    /// The mark goes away with the binding (`removeBinding`).
    func markFileBinding(_ key: Key, file: String) throws(StoreError) {
        try execute(
            "INSERT INTO binding_files (key, file) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET file = excluded.file",
            [key.rawValue, file])
    }

    func unmarkFileBinding(_ key: Key) throws(StoreError) {
        try execute("DELETE FROM binding_files WHERE key = ?", [key.rawValue])
    }

    func fileBindings() throws(StoreError) -> [Key: String] {
        try run { db in
            var marks: [Key: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, file FROM binding_files") {
                marks[try PropertyRow.key(row, 0, path: path)] = row[1]
            }
            return marks
        }
    }

    private func execute(_ sql: String, _ arguments: StatementArguments) throws(StoreError) {
        try run { db in try db.cachedStatement(sql: sql).execute(arguments: arguments) }
    }
}
