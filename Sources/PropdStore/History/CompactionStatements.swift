/// The statements history compaction runs on the writer's connection,
/// prepared once with the other writer statements.
final class CompactionStatements {
    /// `previous` of one history row (?1 its revision, ?2 its key): no row,
    /// NULL, or a revision. The statements below name a row the same way.
    let previousOf: SQLiteStatement
    /// Makes a row the oldest of its key's chain.
    let endChain: SQLiteStatement
    /// Deletes one row. (Rows go one by one, each `previous` read first:
    /// a recursive query or `RETURNING` would build a temporary table.)
    let removeRow: SQLiteStatement
    /// Deletes every row with an id from ?1 to ?2 (``HistoryRowID/ids(of:)``).
    let removeRange: SQLiteStatement
    /// Removes the key's deleted_heads row when it is stale (the key was set
    /// again since its delete, so its head is properties.revision).
    let dropStaleDeletedHead: SQLiteStatement
    let setHorizon: SQLiteStatement

    /// The history row of revision ?1 and key ?2, found among its
    /// revision's ids (`+key`: never by key, see ``HistoryChain/walk``).
    static let row = "\(HistoryRowID.rowsOfRevision("?1")) AND +key = ?2"

    init(_ connection: SQLiteConnection) throws(SQLiteError) {
        let row = Self.row
        previousOf = try connection.statement("SELECT previous FROM history WHERE \(row)")
        endChain = try connection.statement("UPDATE history SET previous = NULL WHERE \(row)")
        removeRow = try connection.statement("DELETE FROM history WHERE \(row)")
        removeRange = try connection.statement("DELETE FROM history WHERE id BETWEEN ?1 AND ?2")
        dropStaleDeletedHead = try connection.statement("""
            DELETE FROM deleted_heads WHERE key = ?1 AND EXISTS (
                SELECT 1 FROM properties WHERE key = ?1 AND (value IS NOT NULL OR error IS NOT NULL))
            """)
        setHorizon = try connection.statement("UPDATE meta SET value = ?1 WHERE name = 'history_horizon'")
    }
}
