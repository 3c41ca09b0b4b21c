import GRDB
public import PropdCore

extension WriteTransaction {
    /// Every declared binding, sorted by key, as this transaction sees them
    /// (earlier requests of the batch included): for rebuilding the engine
    /// mid-batch.
    public func bindingRecords() throws(StoreError) -> [BindingRecord] {
        try run { db in
            try Row.fetchAll(db, sql: "SELECT key, expression, sources, revision FROM bindings ORDER BY key")
                .map { try BindingRecord(row: $0, path: path) }
        }
    }

    /// The operator state of every binding, as this transaction sees it.
    public func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        try run { db in
            var states: [Key: JSONValue] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, state FROM binding_state") {
                states[try PropertyRow.key(row, 0, path: path)] = try PropertyRow.json(row, 1, path: path)
            }
            return states
        }
    }
}
