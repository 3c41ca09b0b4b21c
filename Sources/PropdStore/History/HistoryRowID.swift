/// How a history row's id is made (`schema/006_history_row_ids.sql`): its
/// revision shifted left by ``slotBits``, plus its place among the
/// revision's rows. Ids grow with revisions, so history appends at the
/// right end of its table and reads in revision order by id.
enum HistoryRowID {
    static let slotBits = 18
    /// The most history rows one revision has.
    static let rowsPerRevision = 1 << slotBits
    /// The highest revision whose rows have ids.
    static let maxRevision = Int64.max >> slotBits

    /// The id of the revision's row in `slot`.
    static func id(revision: Int64, slot: Int) -> Int64 {
        revision << slotBits | Int64(slot)
    }

    /// The ids of the rows of `revisions` (not empty).
    static func ids(of revisions: Range<Int64>) -> ClosedRange<Int64> {
        id(revision: revisions.lowerBound, slot: 0)...id(revision: revisions.upperBound - 1, slot: rowsPerRevision - 1)
    }

    /// The revision of the row with `id`.
    static func revision(of id: Int64) -> Int64 {
        id >> slotBits
    }

    /// SQL that is true for the rows, of any table aliased `table`, whose
    /// revision is the SQL expression `revision`.
    static func rowsOfRevision(_ revision: String, in table: String = "history") -> String {
        "\(table).id BETWEEN (\(revision)) << \(slotBits) AND ((\(revision)) << \(slotBits)) + \(rowsPerRevision - 1)"
    }

    /// SQL for the revision of the row, of the table aliased `table`.
    static func revisionColumn(in table: String = "history") -> String {
        "\(table).id >> \(slotBits)"
    }
}

extension PropertyStore {
    /// The most changes (keys set, deleted or in error) one revision holds:
    /// each is a history row with an id of its revision's (``HistoryRowID``).
    /// A write past it is refused with
    /// ``StoreError/limitExceeded(limit:maximum:)``.
    public static var maximumChangesPerRevision: Int { HistoryRowID.rowsPerRevision }
}
