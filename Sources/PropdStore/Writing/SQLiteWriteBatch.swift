import GRDB
import PropdCore

/// ``PropertyStore``'s side of one batch: the requests' reads and writes as
/// SQL on the writer connection, inside the batch's transaction.
///
/// Made by the group-commit writer for each batch and used by it alone,
/// one request at a time.
final class SQLiteWriteBatch: WriteBatchStorage {
    let db: Database
    let statements: WriterStatements
    let path: String
    /// The first storage failure (disk full, I/O error) met while running
    /// the batch, noted even when a request's body catches and swallows the
    /// error: SQLite may already have rolled the transaction back, so the
    /// whole batch must be abandoned.
    private(set) var storageFailure: StoreError?

    init(db: Database, statements: WriterStatements, path: String) {
        self.db = db
        self.statements = statements
        self.path = path
    }

    // MARK: Reading

    func property(_ key: Key) throws(StoreError) -> Property? {
        try run { db in
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(PropertyRow.selectColumns) FROM \(PropertyRow.fromClause) WHERE p.key = ?"),
                arguments: [key.rawValue])
            return try row.map { try PropertyRow.property($0, path: path) }
        }
    }

    func revision(of key: Key) throws(StoreError) -> Revision {
        try run { _ in
            let statement = statements.revisionOfKey
            statement.bind(1, key.rawValue)
            return Revision(try statement.int64() ?? 0)
        }
    }

    func binding(_ key: Key) throws(StoreError) -> BindingRecord? {
        try run { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT key, expression, sources, revision FROM bindings WHERE key = ?"),
                arguments: [key.rawValue])
            else { return nil }
            return try BindingRecord(row: row, path: path)
        }
    }

    func bindingState(_ key: Key) throws(StoreError) -> JSONValue? {
        try run { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT state FROM binding_state WHERE key = ?"), arguments: [key.rawValue])
            else { return nil }
            return try PropertyRow.json(row, 0, path: path)
        }
    }

    func bindingRecords() throws(StoreError) -> [BindingRecord] {
        try run { db in try BindingTables.records(db, path: path) }
    }

    func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        try run { db in try BindingTables.states(db, path: path) }
    }

    // MARK: Changing properties

    func set(_ key: Key, _ value: JSONValue, expires: Int64?, at revision: Revision) throws(StoreError) {
        let text = value.jsonString
        try run { _ in
            // History first: its `previous` is the key's head before this change.
            try appendHistory(key: key, kind: "set", value: text, error: nil, at: revision)
            let upsert = statements.upsert
            upsert.bind(1, key.rawValue)
            upsert.bind(2, text)
            upsert.bind(3, revision.rawValue)
            upsert.bind(4, expires)
            try upsert.execute()
        }
    }

    func delete(_ key: Key, at revision: Revision) throws(StoreError) {
        try run { _ in
            let headOfProperty = statements.headOfProperty
            headOfProperty.bind(1, key.rawValue)
            guard let head = try headOfProperty.optionalInt64() else { throw StoreError.noSuchKey(key) }
            let delete = statements.delete
            delete.bind(1, key.rawValue)
            try delete.execute()
            try appendHistory(key: key, kind: "delete", value: nil, error: nil, at: revision, previous: head)
            let recordHead = statements.recordDeletedHead
            recordHead.bind(1, key.rawValue)
            recordHead.bind(2, revision.rawValue)
            try recordHead.execute()
        }
    }

    func setError(_ key: Key, _ message: String, at revision: Revision) throws(StoreError) -> JSONValue? {
        let kept = try run { db in
            let kept = try String?.fetchOne(
                db.cachedStatement(sql: "SELECT value FROM properties WHERE key = ?"), arguments: [key.rawValue]) ?? nil
            // History first: its `previous` is the key's head before this change.
            try appendHistory(key: key, kind: "error", value: kept, error: message, at: revision)
            try db.cachedStatement(sql: """
                INSERT INTO properties (key, value, revision, created, error) VALUES (?1, NULL, ?2, ?2, ?3)
                ON CONFLICT (key) DO UPDATE SET revision = excluded.revision, error = excluded.error
                """).execute(arguments: [key.rawValue, revision.rawValue, message])
            return kept
        }
        return kept.flatMap { try? JSONValue(parsing: $0) }
    }

    func declareDerived(_ key: Key, at revision: Revision) throws(StoreError) -> Bool {
        try run { db in
            try db.cachedStatement(sql: """
                INSERT INTO properties (key, value, revision, created, error) VALUES (?1, NULL, ?2, ?2, NULL)
                ON CONFLICT (key) DO NOTHING
                """).execute(arguments: [key.rawValue, revision.rawValue])
            return db.changesCount > 0
        }
    }

    // MARK: Bindings and their state

    func putBinding(_ binding: BindingRecord) throws(StoreError) {
        try run { db in
            try db.cachedStatement(sql: """
                INSERT INTO bindings (key, expression, sources, revision) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (key) DO UPDATE SET expression = excluded.expression, sources = excluded.sources,
                    revision = excluded.revision
                """).execute(arguments: [
                    binding.key.rawValue, binding.expression, PropertyRow.json(keys: binding.sources),
                    binding.revision.rawValue,
                ])
        }
    }

    func removeBinding(_ key: Key) throws(StoreError) -> Bool {
        try run { db in
            try db.cachedStatement(sql: "DELETE FROM bindings WHERE key = ?").execute(arguments: [key.rawValue])
            return db.changesCount > 0
        }
    }

    func putBindingState(_ key: Key, _ state: JSONValue) throws(StoreError) {
        try run { db in
            try db.cachedStatement(sql: """
                INSERT INTO binding_state (key, state) VALUES (?1, ?2)
                ON CONFLICT (key) DO UPDATE SET state = excluded.state
                """).execute(arguments: [key.rawValue, state.jsonString])
        }
    }

    func removeBindingState(_ key: Key) throws(StoreError) -> Bool {
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
        key: Key, kind: String, value: String?, error: String?, at revision: Revision, previous: Int64? = nil
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

    /// Runs SQL, turning SQLite failures into named errors and remembering
    /// storage failures so that the batch can be abandoned.
    func run<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try body(db)
        } catch {
            let storeError = StoreError(operating: error, path: path)
            if storeError.isStorageFailure, storageFailure == nil { storageFailure = storeError }
            throw storeError
        }
    }
}
