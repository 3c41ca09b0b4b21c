import GRDB
import PropdCore

extension BindingRecord {
    /// From a row of `key, expression, sources, revision`.
    init(row: Row, path: String) throws {
        self.init(
            key: try PropertyRow.key(row, 0, path: path),
            expression: row[1],
            sources: try PropertyRow.keys(fromJSON: row[2], path: path),
            revision: Revision(row[3] as Int64)
        )
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
