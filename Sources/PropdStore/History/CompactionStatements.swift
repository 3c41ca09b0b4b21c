import GRDB

/// The statements history compaction runs on the writer's connection, a few
/// per trimmed key, prepared once with the other writer statements.
final class CompactionStatements {
    /// `previous` of one history row: no row, NULL, or a revision.
    let previousOf: PreparedStatement
    /// Makes a row the oldest of its key's chain.
    let endChain: PreparedStatement
    /// Deletes one row. (Rows go one by one, each `previous` read first:
    /// a recursive query or `RETURNING` would build a temporary table.)
    let removeRow: PreparedStatement
    /// Removes the key's deleted_heads row when it is stale (the key was set
    /// again since its delete, so its head is properties.revision).
    let dropStaleDeletedHead: PreparedStatement
    let setHorizon: PreparedStatement

    init(_ connection: OpaquePointer) throws(DatabaseError) {
        previousOf = try PreparedStatement(connection, "SELECT previous FROM history WHERE revision = ?1 AND key = ?2")
        endChain = try PreparedStatement(
            connection, "UPDATE history SET previous = NULL WHERE revision = ?1 AND key = ?2")
        removeRow = try PreparedStatement(connection, "DELETE FROM history WHERE revision = ?1 AND key = ?2")
        dropStaleDeletedHead = try PreparedStatement(connection, """
            DELETE FROM deleted_heads WHERE key = ?1 AND EXISTS (
                SELECT 1 FROM properties WHERE key = ?1 AND (value IS NOT NULL OR error IS NOT NULL))
            """)
        setHorizon = try PreparedStatement(connection, "UPDATE meta SET value = ?1 WHERE name = 'history_horizon'")
    }
}
