import PropdCore
import PropdStore

/// The changes of a request. Revisions given here are the request's
/// expected one, for what it reads back before it commits; what etcd stores
/// never contains them (a row's revision is etcd's `mod_revision`).
extension EtcdWriteBatch {
    func set(_ key: Key, _ value: JSONValue, expires: Int64?, at revision: Revision) throws(StoreError) {
        let created = current(key)?.created ?? revision
        write(key, WrittenProperty(record: PropertyRecord(value: value), revision: revision, created: created))
        setExpiry(key, expires)
    }

    func delete(_ key: Key, at revision: Revision) throws(StoreError) {
        guard current(key) != nil else { throw .noSuchKey(key) }
        writeDeletion(key)
        setExpiry(key, nil)
    }

    func setError(_ key: Key, _ message: String, at revision: Revision) throws(StoreError) -> JSONValue? {
        let existing = current(key)
        let kept = existing?.record.value
        write(key, WrittenProperty(
            record: PropertyRecord(value: kept, error: message), revision: revision,
            created: existing?.created ?? revision))
        return kept
    }

    func declareDerived(_ key: Key, at revision: Revision) throws(StoreError) -> Bool {
        guard current(key) == nil else { return false }
        write(key, WrittenProperty(
            record: PropertyRecord(value: nil, silent: true), revision: revision, created: revision))
        return true
    }

    func clearError(_ key: Key) throws(StoreError) {
        guard let existing = current(key), existing.record.error != nil else { return }
        // Not a change: the property keeps its revision, history skips the put.
        var cleared = existing
        cleared.record = PropertyRecord(value: existing.record.value, silent: true, kept: existing.revision)
        write(key, cleared)
    }

    func makePermanent(_ key: Key) throws(StoreError) {
        setExpiry(key, nil)
    }

    func putBinding(_ binding: BindingRecord) throws(StoreError) {
        guardEngineRow(.binding, binding.key)
        let value = BindingValue(expression: binding.expression, sources: binding.sources)
        bindings[binding.key] = .some(value)
        put(.binding, binding.key, value.bytes)
        markBindingsChanged()
    }

    func removeBinding(_ key: Key) throws(StoreError) -> Bool {
        guard try binding(key) != nil else { return false }
        bindings[key] = .some(nil)
        remove(.binding, key)
        markBindingsChanged()
        // The file mark goes with the binding.
        try unmarkFileBinding(key)
        return true
    }

    func putBindingState(_ key: Key, _ state: JSONValue) throws(StoreError) {
        guardEngineRow(.state, key)
        states[key] = .some(state)
        put(.state, key, state.jsonBytes)
    }

    func removeBindingState(_ key: Key) throws(StoreError) -> Bool {
        guard try bindingState(key) != nil else { return false }
        states[key] = .some(nil)
        remove(.state, key)
        return true
    }

    func markFileBinding(_ key: Key, file: String) throws(StoreError) {
        files[key] = .some(file)
        put(.file, key, Array(file.utf8))
    }

    func unmarkFileBinding(_ key: Key) throws(StoreError) {
        if let written = files[key] {
            guard written != nil else { return }
        } else {
            guardRow(.file, key)
            guard base.files[key] != nil else { return }
        }
        files[key] = .some(nil)
        remove(.file, key)
    }

    /// Nothing to do: each request is an etcd transaction of its own, and
    /// a body that throws leaves it unsent.
    func openSavepoint() throws(StoreError) {}

    func registerCommand(_ command: Key, at revision: Revision) throws(StoreError) -> Bool {
        if commands.contains(command) { return false }
        guardRow(.command, command)
        guard base.commands[command] == nil else { return false }
        commands.insert(command)
        put(.command, command, Array("1".utf8))
        return true
    }

    // MARK: Rows

    /// A binding's row or operator state written from the engine's memory
    /// is a read of that row: the engine computed from its copy (the
    /// snapshot's, as it is rebuilt when another node changed one), so
    /// another node's newer row must fail the transaction, not be overwritten.
    private func guardEngineRow(_ table: SpaceLayout.Table, _ key: Key) {
        let written = table == .state ? states[key] != nil : bindings[key] != nil
        if !written { guardRow(table, key) }
    }

    private func write(_ key: Key, _ property: WrittenProperty) {
        properties[key] = .some(property)
        putProperty(key)
    }

    private func writeDeletion(_ key: Key) {
        properties[key] = .some(nil)
        remove(.property, key)
    }

    /// Gives `key` a deadline, or makes it permanent (a write only when it had one).
    private func setExpiry(_ key: Key, _ expires: Int64?) {
        if let expires {
            expiries[key] = .some(expires)
            put(.expiry, key, expires.decimalBytes)
        } else if currentExpiry(key) != nil {
            expiries[key] = .some(nil)
            remove(.expiry, key)
        }
    }
}
