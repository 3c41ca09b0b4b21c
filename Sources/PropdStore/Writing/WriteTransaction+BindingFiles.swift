import GRDB
public import PropdCore

extension WriteTransaction {
    /// Records that `key`'s binding comes from the binding file `file`.
    /// The mark goes away with the binding (`removeBinding`).
    public mutating func markFileBinding(_ key: Key, file: String) throws(StoreError) {
        try execute(
            "INSERT INTO binding_files (key, file) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET file = excluded.file",
            [key.rawValue, file])
    }

    /// Forgets that `key`'s binding came from a file (a client took it over).
    public mutating func unmarkFileBinding(_ key: Key) throws(StoreError) {
        try execute("DELETE FROM binding_files WHERE key = ?", [key.rawValue])
    }

    /// The bindings that came from files, and from which file, as this transaction sees them.
    public func fileBindings() throws(StoreError) -> [Key: String] {
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
