public import PropdCore

/// The store's side of one batch of write requests: what a
/// ``WriteTransaction`` reads and writes while a request's body runs.
///
/// An implementation applies each change at the revision it is given,
/// shows it to the later requests of the same batch, and to nobody else
/// until the batch commits. Everything a request changes — its own keys,
/// the values and errors the binding engine derives from them, the
/// operator state, bindings, binding-file marks and the commands table —
/// commits in the same commit or not at all.
///
/// ``PropertyStore``'s batch is one SQLite transaction; a second store (a
/// cluster's) implements this protocol and ``PropertyStorage`` and the
/// service runs on it unchanged.
///
/// > Important: used on the writer only, by one request at a time; an
/// > instance lives for one batch and is never shared across threads.
/// > A storage failure (disk full, I/O error) thrown by any method fails
/// > the whole batch, even when the body catches it.
public protocol WriteBatchStorage: AnyObject {
    // MARK: Reading, with the earlier requests of the batch

    /// The current property of `key`.
    func property(_ key: Key) throws(StoreError) -> Property?
    /// The revision of `key`'s last change, or ``Revision/none`` when it does not exist.
    func revision(of key: Key) throws(StoreError) -> Revision
    /// The existing keys matching `pattern`, sorted.
    func keys(matching pattern: KeyPattern) throws(StoreError) -> [Key]
    /// The binding declared for `key`, if any.
    func binding(_ key: Key) throws(StoreError) -> BindingRecord?
    /// The stored operator state of `key`'s binding, if any.
    func bindingState(_ key: Key) throws(StoreError) -> JSONValue?
    /// Every declared binding, sorted by key (to rebuild the engine).
    func bindingRecords() throws(StoreError) -> [BindingRecord]
    /// The operator state of every binding (to rebuild the engine).
    func bindingStates() throws(StoreError) -> [Key: JSONValue]
    /// Every key that expires, with its deadline in milliseconds since the epoch.
    func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)]
    /// Every registered command.
    func commandNames() throws(StoreError) -> [Key]
    /// The bindings that came from binding files, and from which file.
    func fileBindings() throws(StoreError) -> [Key: String]

    // MARK: Changing properties, at a revision

    /// Sets `key` to `value` at `revision` (creating it), clears its
    /// evaluation error, and appends the change to history. `expires` in
    /// milliseconds since the epoch; `nil` makes the key permanent.
    func set(_ key: Key, _ value: JSONValue, expires: Int64?, at revision: Revision) throws(StoreError)
    /// Deletes `key` at `revision` and appends the deletion to history.
    /// - Throws: ``StoreError/noSuchKey(_:)`` when it does not exist.
    func delete(_ key: Key, at revision: Revision) throws(StoreError)
    /// Puts a derived key in the error state at `revision` (created without a
    /// value when missing) and appends it to history; returns the value it keeps.
    func setError(_ key: Key, _ message: String, at revision: Revision) throws(StoreError) -> JSONValue?
    /// Creates a derived key without a value unless it exists; returns whether it was created.
    func declareDerived(_ key: Key, at revision: Revision) throws(StoreError) -> Bool
    /// Removes the evaluation error of a derived key without a value (no history).
    func clearError(_ key: Key) throws(StoreError)
    /// Makes `key` permanent without changing its value or revision.
    func makePermanent(_ key: Key) throws(StoreError)

    // MARK: Bindings, operator state, binding files, commands

    /// Declares or replaces a binding (its revision is the request's).
    func putBinding(_ binding: BindingRecord) throws(StoreError)
    /// Removes the binding of `key`; returns whether there was one.
    func removeBinding(_ key: Key) throws(StoreError) -> Bool
    /// Stores the operator state of `key`'s binding.
    func putBindingState(_ key: Key, _ state: JSONValue) throws(StoreError)
    /// Removes the operator state of `key`'s binding; returns whether there was one.
    func removeBindingState(_ key: Key) throws(StoreError) -> Bool
    /// Records that `key`'s binding comes from the binding file `file`.
    func markFileBinding(_ key: Key, file: String) throws(StoreError)
    /// Forgets that `key`'s binding came from a file.
    func unmarkFileBinding(_ key: Key) throws(StoreError)
    /// Records `command` as a command at `revision`; returns whether it is new.
    func registerCommand(_ command: Key, at revision: Revision) throws(StoreError) -> Bool

    // MARK: Rollback

    /// From here on, the request being run can be rolled back alone: a
    /// body submitted as ``WriteRollback/validatesFirst`` calls it before
    /// its first write once it finds it could fail after writing. Does
    /// nothing when the request can already be rolled back alone.
    func openSavepoint() throws(StoreError)
}
