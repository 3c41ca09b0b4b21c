import PropdCore

/// ``PropertyStore``'s side of one batch: the requests' reads and writes as
/// SQL on the writer connection, inside the batch's transaction.
///
/// Made by the group-commit writer for each batch and used by it alone,
/// one request at a time.
final class SQLiteWriteBatch: WriteBatchStorage {
    let connection: SQLiteConnection
    let statements: WriterStatements
    let heads: HistoryHeads
    let rowIDs: HistoryRowIDs
    let path: String
    /// The first storage failure (disk full, I/O error) met while running
    /// the batch, noted even when a request's body catches and swallows the
    /// error: SQLite may already have rolled the transaction back, so the
    /// whole batch must be abandoned. Any failure to write the Sets held
    /// back (``PendingSets``) is one too: they belong to requests already run.
    private(set) var storageFailure: StoreError?
    /// The JSON text of a value set by the single statements, its storage
    /// kept from one such Set of the batch to the next.
    private var valueText: [UInt8] = []
    /// Whether the request being run is inside a savepoint of its own: set
    /// by the writer before it runs (``WriteRollback/savepoint``), or by
    /// its body (``openSavepoint()``).
    var requestHasSavepoint = false

    init(
        connection: SQLiteConnection, statements: WriterStatements, heads: HistoryHeads, rowIDs: HistoryRowIDs,
        path: String
    ) {
        self.connection = connection
        self.statements = statements
        self.heads = heads
        self.rowIDs = rowIDs
        self.path = path
    }

    // MARK: Reading

    func property(_ key: Key) throws(StoreError) -> Property? {
        try run {
            let select = try connection.statement(
                "SELECT \(PropertyRow.selectColumns) FROM \(PropertyRow.fromClause) WHERE p.key = ?1")
            try select.bind(1, key.rawValue)
            return try select.withFirstRow { row in try PropertyRow.property(row, key: key, path: path) }
        }
    }

    func revision(of key: Key) throws(StoreError) -> Revision {
        try run {
            let statement = statements.revisionOfKey
            try statement.bind(1, key.rawValue)
            return Revision(try statement.int64() ?? 0)
        }
    }

    func binding(_ key: Key) throws(StoreError) -> BindingRecord? {
        try run {
            let select = try connection.statement("SELECT \(BindingRecord.selectColumns) FROM bindings WHERE key = ?1")
            try select.bind(1, key.rawValue)
            return try select.withFirstRow { row in try BindingRecord(row: row, path: path) }
        }
    }

    func bindingState(_ key: Key) throws(StoreError) -> JSONValue? {
        try run {
            let select = try connection.statement("SELECT state FROM binding_state WHERE key = ?1")
            try select.bind(1, key.rawValue)
            return try select.withFirstRow { row in try PropertyRow.json(row, 0, path: path) } ?? nil
        }
    }

    func bindingRecords() throws(StoreError) -> [BindingRecord] {
        try run { try StoredTables.bindings(connection, path: path) }
    }

    func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        try run { try StoredTables.bindingStates(connection, path: path) }
    }

    // MARK: Changing properties

    /// Holds the Set back (``PendingSets``) when the writer knows the key's
    /// head, else writes it at once.
    func set(_ key: Key, _ value: JSONValue, expires: Int64?, at revision: Revision) throws(StoreError) {
        let pending = statements.pendingSets
        // Before the head is replaced: a refused id leaves the head as it was.
        let id = try rowIDs.id(of: key.rawValue, at: revision.rawValue)
        if let previous = heads.replaceHead(of: key.rawValue, with: revision.rawValue) {
            pending.append(
                key: key.rawValue, value: value, expires: expires, revision: revision.rawValue, historyID: id,
                previous: previous)
            if pending.count >= PendingSets.statementRows { try writePendingSets() }
            return
        }
        valueText.removeAll(keepingCapacity: true)
        value.encode(into: &valueText)
        let text = valueText
        try run {
            // History first: its `previous` is the key's head before this change.
            try appendHistory(key: key, kind: "set", value: text, error: nil, at: revision, id: id)
            // The key and the value bound in place, as in `appendHistory`.
            let upsert = statements.upsert
            try upsert.bind(3, revision.rawValue)
            try upsert.bind(4, expires)
            try upsert.withText(1, key.rawValue) { try upsert.withText(2, bytes: text) { try upsert.execute() } }
            heads.appended(key.rawValue, at: revision.rawValue)
        }
    }

    func delete(_ key: Key, at revision: Revision) throws(StoreError) {
        try run {
            let headOfProperty = statements.headOfProperty
            try headOfProperty.bind(1, key.rawValue)
            guard let head = try headOfProperty.optionalInt64() else { throw StoreError.noSuchKey(key) }
            let delete = statements.delete
            try delete.bind(1, key.rawValue)
            try delete.execute()
            try appendHistory(key: key, kind: "delete", value: nil, error: nil, at: revision, previous: head)
            let recordHead = statements.recordDeletedHead
            try recordHead.bind(1, key.rawValue)
            try recordHead.bind(2, revision.rawValue)
            try recordHead.execute()
            heads.appended(key.rawValue, at: revision.rawValue)
        }
    }

    func setError(_ key: Key, _ message: String, at revision: Revision) throws(StoreError) -> JSONValue? {
        let kept = try run {
            let select = try connection.statement("SELECT value FROM properties WHERE key = ?1")
            try select.bind(1, key.rawValue)
            let kept = try select.withFirstRow { row in row.text(0) } ?? nil
            // History first: its `previous` is the key's head before this change.
            try appendHistory(key: key, kind: "error", value: kept.map { Array($0.utf8) }, error: message, at: revision)
            let upsert = try connection.statement("""
                INSERT INTO properties (key, value, revision, created, error) VALUES (?1, NULL, ?2, ?2, ?3)
                ON CONFLICT (key) DO UPDATE SET revision = excluded.revision, error = excluded.error
                """)
            try upsert.bind(1, key.rawValue)
            try upsert.bind(2, revision.rawValue)
            try upsert.bind(3, message)
            try upsert.execute()
            heads.appended(key.rawValue, at: revision.rawValue)
            return kept
        }
        return kept.flatMap { try? JSONValue(parsing: $0) }
    }

    func declareDerived(_ key: Key, at revision: Revision) throws(StoreError) -> Bool {
        try run {
            let insert = try connection.statement("""
                INSERT INTO properties (key, value, revision, created, error) VALUES (?1, NULL, ?2, ?2, NULL)
                ON CONFLICT (key) DO NOTHING
                """)
            try insert.bind(1, key.rawValue)
            try insert.bind(2, revision.rawValue)
            return try insert.execute() > 0
        }
    }

    // MARK: Bindings and their state

    func putBinding(_ binding: BindingRecord) throws(StoreError) {
        try run {
            let upsert = try connection.statement("""
                INSERT INTO bindings (key, expression, sources, revision) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (key) DO UPDATE SET expression = excluded.expression, sources = excluded.sources,
                    revision = excluded.revision
                """)
            try upsert.bind(1, binding.key.rawValue)
            try upsert.bind(2, binding.expression)
            try upsert.bind(3, PropertyRow.json(keys: binding.sources))
            try upsert.bind(4, binding.revision.rawValue)
            try upsert.execute()
        }
    }

    func removeBinding(_ key: Key) throws(StoreError) -> Bool {
        try execute("DELETE FROM bindings WHERE key = ?1", key.rawValue) > 0
    }

    func putBindingState(_ key: Key, _ state: JSONValue) throws(StoreError) {
        try execute(
            "INSERT INTO binding_state (key, state) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET state = excluded.state",
            key.rawValue, state.jsonString)
    }

    func removeBindingState(_ key: Key) throws(StoreError) -> Bool {
        try execute("DELETE FROM binding_state WHERE key = ?1", key.rawValue) > 0
    }

    func openSavepoint() throws(StoreError) {
        if requestHasSavepoint { return }
        try run { _ = try statements.savepoint.execute() }
        requestHasSavepoint = true
    }

    // MARK: Internals

    /// Appends the change to history, linked to the key's previous row:
    /// `previous` when the caller knows it, else the head the writer
    /// remembers (``HistoryHeads``), else found by the statement (so it must
    /// run before `properties` changes). The caller tells ``heads`` of the
    /// new head once the whole change is written. The key and the value, on
    /// every Set, are bound in place (``SQLiteStatement/withText(_:_:_:)``).
    /// The row's id is `id` when the caller has it (``HistoryRowIDs``).
    private func appendHistory(
        key: Key, kind: StaticString, value: [UInt8]?, error: String?, at revision: Revision, previous: Int64? = nil,
        id: Int64? = nil
    ) throws {
        let append = statements.appendHistory
        try append.bind(1, try id ?? rowIDs.id(of: key.rawValue, at: revision.rawValue))
        try append.bind(3, kind)
        try append.bind(5, error)
        try append.bind(6, previous ?? heads.head(of: key.rawValue))
        try append.withText(2, key.rawValue) { try append.withText(4, bytes: value) { try append.execute() } }
    }

    /// Runs a statement kept on the connection with text parameters ?1, ?2, ...;
    /// returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ parameters: String...) throws(StoreError) -> Int {
        try run {
            let statement = try connection.statement(sql)
            for (index, parameter) in parameters.enumerated() { try statement.bind(Int32(index + 1), parameter) }
            return try statement.execute()
        }
    }

    /// Writes the Sets held back, if any: before any other SQL of the batch
    /// (``run(_:)`` does it first), a savepoint or a rollback to one, and
    /// the commit.
    func writePendingSets() throws(StoreError) {
        if statements.pendingSets.isEmpty { return }
        do {
            try statements.pendingSets.write(on: connection)
        } catch {
            let storeError = StoreError(operating: error, path: path)
            if storageFailure == nil { storageFailure = storeError }
            throw storeError
        }
    }

    /// Runs SQL, after the Sets held back, turning SQLite failures into
    /// named errors and remembering storage failures so that the batch can
    /// be abandoned.
    func run<T>(_ body: () throws -> T) throws(StoreError) -> T {
        try writePendingSets()
        do {
            return try body()
        } catch {
            let storeError = StoreError(operating: error, path: path)
            if storeError.isStorageFailure, storageFailure == nil { storageFailure = storeError }
            throw storeError
        }
    }
}
