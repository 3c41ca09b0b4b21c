public import PropdCore

/// One write request's view of the store while it runs on the writer,
/// inside its batch.
///
/// Reads see the committed state plus every earlier request of the same
/// batch. Every property change is made at ``revision`` and recorded in
/// ``changes`` (one change per key: a later change to the same key replaces
/// the earlier one). What the store does with each change is the
/// ``WriteBatchStorage``'s business; this type is the same for every store.
///
/// > Important: only valid during the body it was passed to.
public struct WriteTransaction {
    /// The revision this request becomes if its body returns.
    public let revision: Revision
    /// The property changes made so far, in the order first made.
    public private(set) var changes: [Change] = []
    /// The store knows the space changed other than through its own earlier
    /// requests (a cluster store: another node's write to bindings, their
    /// state, expiries or commands; or this request's body ran before and
    /// was not applied). Whoever keeps state derived from the store must
    /// read it again. Always false for ``PropertyStore``, whose writer is
    /// the only one.
    public let spaceChangedElsewhere: Bool

    /// The batch this request runs in.
    let storage: any WriteBatchStorage
    /// Built only for requests that change many keys; small ones search `changes`.
    private var changeIndex: [Key: Int] = [:]

    /// A request at `revision` in the batch `storage` (a store's writer makes these).
    public init(storage: any WriteBatchStorage, revision: Revision, spaceChangedElsewhere: Bool = false) {
        self.storage = storage
        self.revision = revision
        self.spaceChangedElsewhere = spaceChangedElsewhere
    }

    /// The changes as one ``ChangeSet`` at ``revision``.
    public var changeSet: ChangeSet { ChangeSet(revision: revision, changes: changes) }

    // MARK: Reading

    /// The current property, including changes made earlier in this batch.
    public func property(_ key: Key) throws(StoreError) -> Property? {
        try storage.property(key)
    }

    /// The revision of `key`'s last change, or ``Revision/none`` when it does not exist.
    public func revision(of key: Key) throws(StoreError) -> Revision {
        try storage.revision(of: key)
    }

    /// The binding declared for `key`, if any.
    public func binding(_ key: Key) throws(StoreError) -> BindingRecord? {
        try storage.binding(key)
    }

    /// The stored operator state of `key`'s binding, if any.
    public func bindingState(_ key: Key) throws(StoreError) -> JSONValue? {
        try storage.bindingState(key)
    }

    /// The existing keys matching `pattern`, sorted, including changes made
    /// earlier in this batch.
    public func keys(matching pattern: KeyPattern) throws(StoreError) -> [Key] {
        try storage.keys(matching: pattern)
    }

    // MARK: Changing properties

    /// Sets `key` to `value` (creating it if needed) and clears any evaluation
    /// error. Used for client writes and for derived values alike.
    ///
    /// - Parameter expires: when the key expires (milliseconds since the
    ///   epoch); `nil` makes it permanent.
    public mutating func set(_ key: Key, _ value: JSONValue, expires: Int64? = nil) throws(StoreError) {
        try storage.set(key, value, expires: expires, at: revision)
        record(.set(key, value))
    }

    /// Deletes `key`; ``StoreError/noSuchKey(_:)`` when it does not exist.
    public mutating func delete(_ key: Key) throws(StoreError) {
        try storage.delete(key, at: revision)
        record(.delete(key))
    }

    /// Puts a derived key in the error state: its value is kept, `error` is
    /// set. Creates the key (without a value) if it does not exist.
    public mutating func setError(_ key: Key, _ message: String) throws(StoreError) {
        let kept = try storage.setError(key, message, at: revision)
        record(Change(key: key, kind: .error(message), kept: kept))
    }

    /// Makes sure a derived key exists, without a value until its binding
    /// produces one. Records no change (there is nothing to tell subscribers).
    /// Returns whether it was created.
    @discardableResult
    public mutating func declareDerived(_ key: Key) throws(StoreError) -> Bool {
        try storage.declareDerived(key, at: revision)
    }

    // MARK: Bindings and their state

    /// Declares or replaces the binding of `key`, at this revision.
    public mutating func putBinding(key: Key, expression: String, sources: [Key]) throws(StoreError) {
        try storage.putBinding(BindingRecord(key: key, expression: expression, sources: sources, revision: revision))
    }

    /// Removes the binding of `key`; returns whether there was one.
    @discardableResult
    public mutating func removeBinding(_ key: Key) throws(StoreError) -> Bool {
        try storage.removeBinding(key)
    }

    /// Stores the operator state of `key`'s binding.
    public mutating func putBindingState(_ key: Key, _ state: JSONValue) throws(StoreError) {
        try storage.putBindingState(key, state)
    }

    /// Removes the operator state of `key`'s binding; returns whether there was one.
    @discardableResult
    public mutating func removeBindingState(_ key: Key) throws(StoreError) -> Bool {
        try storage.removeBindingState(key)
    }

    // MARK: Internals

    private mutating func record(_ change: Change) {
        let linearLimit = 8
        if changes.count < linearLimit {
            if let index = changes.firstIndex(where: { $0.key == change.key }) {
                changes[index] = change
            } else {
                changes.append(change)
            }
            return
        }
        if changeIndex.isEmpty {
            for (index, existing) in changes.enumerated() { changeIndex[existing.key] = index }
        }
        if let index = changeIndex[change.key] {
            changes[index] = change
        } else {
            changeIndex[change.key] = changes.count
            changes.append(change)
        }
    }
}
