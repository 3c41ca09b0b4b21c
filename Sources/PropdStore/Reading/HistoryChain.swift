/// SQL over the history chain of one key (`schema/003_history_chain.sql`),
/// each link found among its revision's rows (``HistoryRowID``).
enum HistoryChain {
    /// The head of key ?1's chain: its newest history row's revision, or NULL.
    static let head = """
        coalesce(
            (SELECT revision FROM properties WHERE key = ?1 AND (value IS NOT NULL OR error IS NOT NULL)),
            (SELECT revision FROM deleted_heads WHERE key = ?1))
        """

    /// Key ?1's rows below revision ?2, newest first, at most ?3: columns
    /// revision, kind, value, error. The walk goes through the rows at or
    /// above ?2 without returning them and stops once ?3 rows are found, or
    /// at a `previous` that does not go back in time (a damaged file must not
    /// make it loop). Each row is found among its revision's ids; `+key`
    /// keeps SQLite from indexing history by key for the recursive step
    /// instead (an automatic index, built over the whole table each time).
    static let walk = """
        WITH RECURSIVE chain(revision, kind, value, error, previous, found) AS (
            SELECT \(HistoryRowID.revisionColumn()), kind, value, error, previous,
                \(HistoryRowID.revisionColumn()) < ?2
            FROM (SELECT \(head) AS revision) AS head
            JOIN history ON \(HistoryRowID.rowsOfRevision("head.revision")) AND +history.key = ?1
            UNION ALL
            SELECT \(HistoryRowID.revisionColumn(in: "h")), h.kind, h.value, h.error, h.previous,
                chain.found + (\(HistoryRowID.revisionColumn(in: "h")) < ?2)
            FROM chain JOIN history h ON \(HistoryRowID.rowsOfRevision("chain.previous", in: "h")) AND +h.key = ?1
            WHERE chain.found < ?3 AND chain.previous < chain.revision
        )
        SELECT revision, kind, value, error FROM chain WHERE revision < ?2
        """
}
