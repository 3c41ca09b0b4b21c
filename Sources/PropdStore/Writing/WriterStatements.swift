/// The hot-path statements of the writer connection, prepared once (with
/// the first batch) and bound and stepped through ``SQLiteStatement``: no
/// argument arrays, no statement-cache lookups per write.
final class WriterStatements {
    let begin: SQLiteStatement
    let commit: SQLiteStatement
    let savepoint: SQLiteStatement
    let release: SQLiteStatement
    let rollbackToSavepoint: SQLiteStatement
    let setRevision: SQLiteStatement
    let upsert: SQLiteStatement
    /// The head of an existing key's history chain: its revision, or NULL
    /// for a derived key declared without a value (its head is elsewhere).
    let headOfProperty: SQLiteStatement
    let delete: SQLiteStatement
    /// Appends to history the row with id ?1 (``HistoryRowIDs``). Run BEFORE
    /// the change to `properties`: the row's `previous` is ?6 when bound,
    /// else the key's head as the rule of `schema/003_history_chain.sql`
    /// finds it. A second change of the same key in the same revision has
    /// the same id: it replaces the first row and keeps its `previous`.
    let appendHistory: SQLiteStatement
    let recordDeletedHead: SQLiteStatement
    let revisionOfKey: SQLiteStatement
    let compaction: CompactionStatements
    /// The Sets held back to be written together, with their statements.
    let pendingSets = PendingSets()

    /// The upsert of a Set's `properties` row, before its values: here and
    /// in ``PendingSets``, which writes many rows with one statement.
    static let upsertInto = "INSERT INTO properties (key, value, revision, created, error, expires)"
    static let upsertConflict = """
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision, error = NULL, \
        expires = excluded.expires
        """
    /// The history row of a change, before its values; a second change of
    /// the same key in the same revision (the same id) replaces the first
    /// row's content.
    static let historyInto = "INSERT INTO history (id, key, kind, value, error, previous)"
    static let historyConflict = """
        ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, value = excluded.value, \
        error = excluded.error
        """

    init(_ connection: SQLiteConnection) throws(SQLiteError) {
        begin = try connection.statement("BEGIN IMMEDIATE")
        commit = try connection.statement("COMMIT")
        savepoint = try connection.statement("SAVEPOINT request")
        release = try connection.statement("RELEASE request")
        rollbackToSavepoint = try connection.statement("ROLLBACK TO request")
        setRevision = try connection.statement("UPDATE meta SET value = ?1 WHERE name = 'revision'")
        upsert = try connection.statement(
            "\(Self.upsertInto) VALUES (?1, ?2, ?3, ?3, NULL, ?4) \(Self.upsertConflict)")
        // Not `DELETE ... RETURNING`: SQLite collects the returned rows in a
        // temporary table, built anew at each step (and SQLite 3.40 answers
        // `value IS NULL` wrongly there).
        headOfProperty = try connection.statement("""
            SELECT CASE WHEN value IS NULL AND error IS NULL THEN NULL ELSE revision END FROM properties WHERE key = ?1
            """)
        delete = try connection.statement("DELETE FROM properties WHERE key = ?1")
        appendHistory = try connection.statement("""
            \(Self.historyInto) VALUES (?1, ?2, ?3, ?4, ?5, coalesce(?6,
                (SELECT revision FROM properties WHERE key = ?2 AND (value IS NOT NULL OR error IS NOT NULL)),
                (SELECT revision FROM deleted_heads WHERE key = ?2)))
            \(Self.historyConflict)
            """)
        recordDeletedHead = try connection.statement("""
            INSERT INTO deleted_heads (key, revision) VALUES (?1, ?2)
            ON CONFLICT (key) DO UPDATE SET revision = excluded.revision
            """)
        revisionOfKey = try connection.statement("SELECT revision FROM properties WHERE key = ?1")
        compaction = try CompactionStatements(connection)
    }
}
