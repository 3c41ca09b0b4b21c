import GRDB
public import PropdCore

/// One write request's view of the store while it runs on the writer, inside
/// the batch's SQLite transaction and its own savepoint.
///
/// Reads see the committed state plus every earlier request of the same
/// batch. Every property change is appended to history at ``revision`` and
/// recorded in ``changes`` (one change per key: a later change to the same
/// key replaces the earlier one).
///
/// > Important: only valid during the body it was passed to.
public struct WriteTransaction {
    /// The revision this request becomes if its body returns.
    public let revision: Revision
    /// The property changes made so far, in the order first made.
    public private(set) var changes: [Change] = []

    let db: Database
    let statements: WriterStatements
    let path: String
    let batch: BatchFailure
    /// Built only for requests that change many keys; small ones search `changes`.
    private var changeIndex: [Key: Int] = [:]

    init(db: Database, statements: WriterStatements, revision: Revision, path: String, batch: BatchFailure) {
        self.db = db
        self.statements = statements
        self.revision = revision
        self.path = path
        self.batch = batch
    }

    /// The changes as one ``ChangeSet`` at ``revision``.
    public var changeSet: ChangeSet { ChangeSet(revision: revision, changes: changes) }

    // MARK: Reading

    /// The current property, including changes made earlier in this batch.
    public func property(_ key: Key) throws(StoreError) -> Property? {
        try run { db in
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(PropertyRow.selectColumns) FROM \(PropertyRow.fromClause) WHERE p.key = ?"),
                arguments: [key.rawValue])
            return try row.map { try PropertyRow.property($0, path: path) }
        }
    }

    /// The revision of `key`'s last change, or ``Revision/none`` when it does not exist.
    public func revision(of key: Key) throws(StoreError) -> Revision {
        try run { _ in
            let statement = statements.revisionOfKey
            statement.bind(1, key.rawValue)
            return Revision(try statement.int64() ?? 0)
        }
    }

    /// The binding declared for `key`, if any.
    public func binding(_ key: Key) throws(StoreError) -> BindingRecord? {
        try run { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT key, expression, sources, revision FROM bindings WHERE key = ?"),
                arguments: [key.rawValue])
            else { return nil }
            return try BindingRecord(row: row, path: path)
        }
    }

    /// The stored operator state of `key`'s binding, if any.
    public func bindingState(_ key: Key) throws(StoreError) -> JSONValue? {
        try run { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT state FROM binding_state WHERE key = ?"), arguments: [key.rawValue])
            else { return nil }
            return try PropertyRow.json(row, 0, path: path)
        }
    }

    // MARK: Changing properties

    /// Sets `key` to `value` (creating it if needed) and clears any evaluation
    /// error. Used for client writes and for derived values alike.
    ///
    /// - Parameter expires: when the key expires (milliseconds since the
    ///   epoch); `nil` makes it permanent.
    public mutating func set(_ key: Key, _ value: JSONValue, expires: Int64? = nil) throws(StoreError) {
        let text = value.jsonString
        try run { _ in
            // History first: its `previous` is the key's head before this change.
            try appendHistory(key: key, kind: "set", value: text, error: nil)
            let upsert = statements.upsert
            upsert.bind(1, key.rawValue)
            upsert.bind(2, text)
            upsert.bind(3, revision.rawValue)
            upsert.bind(4, expires)
            try upsert.execute()
        }
        record(.set(key, value))
    }

    /// Deletes `key`; ``StoreError/noSuchKey(_:)`` when it does not exist.
    public mutating func delete(_ key: Key) throws(StoreError) {
        try run { _ in
            let headOfProperty = statements.headOfProperty
            headOfProperty.bind(1, key.rawValue)
            guard let head = try headOfProperty.optionalInt64() else { throw StoreError.noSuchKey(key) }
            let delete = statements.delete
            delete.bind(1, key.rawValue)
            try delete.execute()
            try appendHistory(key: key, kind: "delete", value: nil, error: nil, previous: head)
            let recordHead = statements.recordDeletedHead
            recordHead.bind(1, key.rawValue)
            recordHead.bind(2, revision.rawValue)
            try recordHead.execute()
        }
        record(.delete(key))
    }

    /// Puts a derived key in the error state: its value is kept, `error` is
    /// set. Creates the key (without a value) if it does not exist.
    public mutating func setError(_ key: Key, _ message: String) throws(StoreError) {
        let revision = self.revision.rawValue
        let kept = try run { db in
            let kept = try String?.fetchOne(
                db.cachedStatement(sql: "SELECT value FROM properties WHERE key = ?"), arguments: [key.rawValue]) ?? nil
            // History first: its `previous` is the key's head before this change.
            try appendHistory(key: key, kind: "error", value: kept, error: message)
            try db.cachedStatement(sql: """
                INSERT INTO properties (key, value, revision, created, error) VALUES (?1, NULL, ?2, ?2, ?3)
                ON CONFLICT (key) DO UPDATE SET revision = excluded.revision, error = excluded.error
                """).execute(arguments: [key.rawValue, revision, message])
            return kept
        }
        record(Change(key: key, kind: .error(message), kept: kept.flatMap { try? JSONValue(parsing: $0) }))
    }

    /// Makes sure a derived key exists, without a value until its binding
    /// produces one. Records no change (there is nothing to tell subscribers).
    /// Returns whether it was created.
    @discardableResult
    public mutating func declareDerived(_ key: Key) throws(StoreError) -> Bool {
        let revision = self.revision.rawValue
        return try run { db in
            try db.cachedStatement(sql: """
                INSERT INTO properties (key, value, revision, created, error) VALUES (?1, NULL, ?2, ?2, NULL)
                ON CONFLICT (key) DO NOTHING
                """).execute(arguments: [key.rawValue, revision])
            return db.changesCount > 0
        }
    }

    // MARK: Bindings and their state

    /// Declares or replaces the binding of `key`, at this revision.
    public mutating func putBinding(key: Key, expression: String, sources: [Key]) throws(StoreError) {
        let revision = self.revision.rawValue
        try run { db in
            try db.cachedStatement(sql: """
                INSERT INTO bindings (key, expression, sources, revision) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (key) DO UPDATE SET expression = excluded.expression, sources = excluded.sources,
                    revision = excluded.revision
                """).execute(arguments: [key.rawValue, expression, PropertyRow.json(keys: sources), revision])
        }
    }

    /// Removes the binding of `key`; returns whether there was one.
    @discardableResult
    public mutating func removeBinding(_ key: Key) throws(StoreError) -> Bool {
        try run { db in
            try db.cachedStatement(sql: "DELETE FROM bindings WHERE key = ?").execute(arguments: [key.rawValue])
            return db.changesCount > 0
        }
    }

    /// Stores the operator state of `key`'s binding.
    public mutating func putBindingState(_ key: Key, _ state: JSONValue) throws(StoreError) {
        try run { db in
            try db.cachedStatement(sql: """
                INSERT INTO binding_state (key, state) VALUES (?1, ?2)
                ON CONFLICT (key) DO UPDATE SET state = excluded.state
                """).execute(arguments: [key.rawValue, state.jsonString])
        }
    }

    /// Removes the operator state of `key`'s binding; returns whether there was one.
    @discardableResult
    public mutating func removeBindingState(_ key: Key) throws(StoreError) -> Bool {
        try run { db in
            try db.cachedStatement(sql: "DELETE FROM binding_state WHERE key = ?").execute(arguments: [key.rawValue])
            return db.changesCount > 0
        }
    }

    // MARK: Internals

    /// Appends the change to history, linked to the key's previous row:
    /// `previous` when the caller knows it, else found by the statement (so
    /// it must run before `properties` changes).
    private func appendHistory(
        key: Key, kind: String, value: String?, error: String?, previous: Int64? = nil
    ) throws {
        let append = statements.appendHistory
        append.bind(1, revision.rawValue)
        append.bind(2, key.rawValue)
        append.bind(3, kind)
        append.bind(4, value)
        append.bind(5, error)
        append.bind(6, previous)
        try append.execute()
    }

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

    /// Runs SQL, turning SQLite failures into named errors and remembering
    /// storage failures so that the batch can be abandoned.
    func run<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try body(db)
        } catch {
            let storeError = StoreError(operating: error, path: path)
            if storeError.isStorageFailure, batch.failure == nil { batch.failure = storeError }
            throw storeError
        }
    }
}
