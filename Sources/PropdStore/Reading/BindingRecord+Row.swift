import GRDB
import PropdCore

extension BindingRecord {
    /// From a row of `key, expression, sources, revision`.
    init(row: Row, path: String) throws {
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

/// The binding tables read whole, by the store's readers and by write
/// transactions alike.
enum BindingTables {
    static func records(_ db: Database, path: String) throws -> [BindingRecord] {
        try Row.fetchAll(db, sql: "SELECT key, expression, sources, revision FROM bindings ORDER BY key")
            .map { try BindingRecord(row: $0, path: path) }
    }

    static func states(_ db: Database, path: String) throws -> [Key: JSONValue] {
        var states: [Key: JSONValue] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, state FROM binding_state") {
            states[try PropertyRow.key(row, 0, path: path)] = try PropertyRow.json(row, 1, path: path)
        }
        return states
    }
}
