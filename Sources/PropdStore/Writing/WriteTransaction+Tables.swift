public import PropdCore

extension WriteTransaction {
    /// Every declared binding, sorted by key, as this transaction sees them
    /// (earlier requests of the batch included): for rebuilding the engine
    /// mid-batch.
    public func bindingRecords() throws(StoreError) -> [BindingRecord] {
        try storage.bindingRecords()
    }

    /// The operator state of every binding, as this transaction sees it.
    public func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        try storage.bindingStates()
    }

    /// Every key that expires, with its deadline, as this request sees them
    /// (to rebuild the engine's schedule after a rollback).
    public func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        try storage.expiringKeys()
    }

    /// Makes `key` permanent without changing its value or revision: it
    /// became derived, and derived keys do not expire.
    public mutating func makePermanent(_ key: Key) throws(StoreError) {
        try storage.makePermanent(key)
    }

    /// Removes the evaluation error of a derived key that has no value (a
    /// successful evaluation dropped its value). Nothing goes to history:
    /// there is no value to record.
    public mutating func clearError(_ key: Key) throws(StoreError) {
        try storage.clearError(key)
    }

    /// Records `command` as a command (see `schema/005_commands.sql`);
    /// returns whether it is new.
    @discardableResult
    public mutating func registerCommand(_ command: Key) throws(StoreError) -> Bool {
        try storage.registerCommand(command, at: revision)
    }

    /// Every command, as this transaction sees them.
    public func commandNames() throws(StoreError) -> [Key] {
        try storage.commandNames()
    }

    /// Makes this request one that is rolled back alone if it fails from
    /// here on, as with ``WriteRollback/savepoint``: for a body submitted
    /// as ``WriteRollback/validatesFirst`` that finds, before its first
    /// write, that it could fail after it (a Set whose keys feed bindings).
    public mutating func openSavepoint() throws(StoreError) {
        try storage.openSavepoint()
    }

    /// Records that `key`'s binding comes from the binding file `file`.
    /// The mark goes away with the binding (`removeBinding`).
    public mutating func markFileBinding(_ key: Key, file: String) throws(StoreError) {
        try storage.markFileBinding(key, file: file)
    }

    /// Forgets that `key`'s binding came from a file (a client took it over).
    public mutating func unmarkFileBinding(_ key: Key) throws(StoreError) {
        try storage.unmarkFileBinding(key)
    }

    /// The bindings that came from files, and from which file, as this transaction sees them.
    public func fileBindings() throws(StoreError) -> [Key: String] {
        try storage.fileBindings()
    }
}
