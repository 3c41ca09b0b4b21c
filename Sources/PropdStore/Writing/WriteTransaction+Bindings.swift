public import PropdCore

extension WriteTransaction {
    /// Every declared binding, sorted by key, as this transaction sees them
    /// (earlier requests of the batch included): for rebuilding the engine
    /// mid-batch.
    public func bindingRecords() throws(StoreError) -> [BindingRecord] {
        try run { db in try BindingTables.records(db, path: path) }
    }

    /// The operator state of every binding, as this transaction sees it.
    public func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        try run { db in try BindingTables.states(db, path: path) }
    }
}
