/// The statements history compaction runs on the writer's connection,
/// prepared once with the other writer statements.
final class CompactionStatements {
    /// `previous` of one history row: no row, NULL, or a revision.
    let previousOf: SQLiteStatement
    /// Makes a row the oldest of its key's chain.
    let endChain: SQLiteStatement
    /// Deletes one row. (Rows go one by one, each `previous` read first:
    /// a recursive query or `RETURNING` would build a temporary table.)
    let removeRow: SQLiteStatement
    /// Deletes every row in a range of revisions.
    let removeRange: SQLiteStatement
    /// Removes the key's deleted_heads row when it is stale (the key was set
    /// again since its delete, so its head is properties.revision).
    let dropStaleDeletedHead: SQLiteStatement
    let setHorizon: SQLiteStatement

    init(_ connection: SQLiteConnection) throws(SQLiteError) {
        previousOf = try connection.statement("SELECT previous FROM history WHERE revision = ?1 AND key = ?2")
        endChain = try connection.statement(
            "UPDATE history SET previous = NULL WHERE revision = ?1 AND key = ?2")
        removeRow = try connection.statement("DELETE FROM history WHERE revision = ?1 AND key = ?2")
        removeRange = try connection.statement(
            "DELETE FROM history WHERE revision >= ?1 AND revision < ?2")
        dropStaleDeletedHead = try connection.statement("""
            DELETE FROM deleted_heads WHERE key = ?1 AND EXISTS (
                SELECT 1 FROM properties WHERE key = ?1 AND (value IS NOT NULL OR error IS NOT NULL))
            """)
        setHorizon = try connection.statement("UPDATE meta SET value = ?1 WHERE name = 'history_horizon'")
    }
}
