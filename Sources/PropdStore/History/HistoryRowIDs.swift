import PropdCore

/// Gives each history row the writer appends its id (``HistoryRowID``):
/// the revision's rows get slots 0, 1, 2, ... in the order they are
/// written, and a key changed twice in one revision gets its first row's
/// id again, so that its second change replaces the first
/// (``WriterStatements/historyConflict``).
///
/// A request rolled back leaves its keys here; when its revision is given
/// to the next request, their ids name rows that no longer exist and are
/// taken again only by the same keys, so ids stay unique.
///
/// Used by the group-commit writer alone (see ``WriterLocal``).
final class HistoryRowIDs {
    private var revision: Int64 = -1
    private var nextSlot = 0
    /// The revision's first key, kept apart: most revisions have one row,
    /// and then no dictionary is touched.
    private var firstKey = ""
    private var laterSlots: [String: Int] = [:]

    /// The id of `key`'s history row at `revision`. Fails with
    /// ``StoreError/limitExceeded(limit:maximum:)`` past
    /// ``HistoryRowID/maxRevision`` or ``HistoryRowID/rowsPerRevision``.
    func id(of key: String, at revision: Int64) throws(StoreError) -> Int64 {
        if revision != self.revision {
            guard revision <= HistoryRowID.maxRevision else {
                throw .limitExceeded(limit: "revisions", maximum: Int(HistoryRowID.maxRevision))
            }
            self.revision = revision
            nextSlot = 1
            firstKey = key
            if !laterSlots.isEmpty { laterSlots.removeAll(keepingCapacity: true) }
            return HistoryRowID.id(revision: revision, slot: 0)
        }
        if key == firstKey { return HistoryRowID.id(revision: revision, slot: 0) }
        if let slot = laterSlots[key] { return HistoryRowID.id(revision: revision, slot: slot) }
        guard nextSlot < HistoryRowID.rowsPerRevision else {
            throw .limitExceeded(limit: "history rows per revision", maximum: HistoryRowID.rowsPerRevision)
        }
        laterSlots[key] = nextSlot
        nextSlot += 1
        return HistoryRowID.id(revision: revision, slot: nextSlot - 1)
    }
}
