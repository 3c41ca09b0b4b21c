import PropdCore

extension BindingRecord {
    static let selectColumns = "key, expression, sources, revision"

    /// From a row of ``selectColumns``.
    init(row: SQLiteRow, path: String) throws {
        let key = try PropertyRow.key(row, 0, path: path)
        do {
            self.init(
                key: key,
                expression: try PropertyRow.text(row, 1, "expression", path: path),
                sources: try PropertyRow.keys(fromJSON: PropertyRow.text(row, 2, "sources", path: path), path: path),
                revision: Revision(try PropertyRow.integer(row, 3, "revision", path: path))
            )
        } catch StoreError.corrupt(let path, let message) {
            throw StoreError.corrupt(path: path, message: "the binding of \(key): \(message)")
        }
    }
}

/// The tables read whole, by the store's readers and by write transactions
/// alike (both through an ``SQLiteConnection``).
enum StoredTables {
    static func bindings(_ connection: SQLiteConnection, path: String) throws -> [BindingRecord] {
        var records: [BindingRecord] = []
        try connection.statement("SELECT \(BindingRecord.selectColumns) FROM bindings ORDER BY key").forEachRow { row in
            records.append(try BindingRecord(row: row, path: path))
            return true
        }
        return records
    }

    static func bindingStates(_ connection: SQLiteConnection, path: String) throws -> [Key: JSONValue] {
        var states: [Key: JSONValue] = [:]
        try connection.statement("SELECT key, state FROM binding_state").forEachRow { row in
            states[try PropertyRow.key(row, 0, path: path)] = try PropertyRow.json(row, 1, path: path)
            return true
        }
        return states
    }

    /// Every command, sorted by name.
    static func commandNames(_ connection: SQLiteConnection, path: String) throws -> [Key] {
        var names: [Key] = []
        try connection.statement("SELECT name FROM commands ORDER BY name").forEachRow { row in
            names.append(try PropertyRow.key(row, 0, path: path))
            return true
        }
        return names
    }

    /// The expiring keys, read through the partial index `properties_expiring`.
    static func expiringKeys(_ connection: SQLiteConnection, path: String) throws -> [(key: Key, expires: Int64)] {
        var result: [(key: Key, expires: Int64)] = []
        try connection.statement("SELECT key, expires FROM properties WHERE expires IS NOT NULL").forEachRow { row in
            result.append((try PropertyRow.key(row, 0, path: path), try PropertyRow.integer(row, 1, "expires", path: path)))
            return true
        }
        return result
    }
}
