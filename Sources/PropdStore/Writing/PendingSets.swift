import PropdCore

/// The Sets of a batch whose rows wait to be written together.
///
/// A Set is a history row and an upsert of `properties`. Written one Set
/// at a time, that is two statement runs per Set, and most of a run's cost
/// is opening and closing its tables' cursors. Held here instead, the
/// batch's Sets are written by one multi-row `INSERT` into history and one
/// multi-row upsert per up to ``statementRows`` Sets, just before the next
/// SQL of the batch that could see them: any read or other change, a
/// savepoint, the commit (``SQLiteWriteBatch`` and ``GroupCommit`` write
/// them there).
///
/// Only a Set whose history chain head the writer knows is held
/// (``HistoryHeads``): its row's `previous` is bound. Any other needs the
/// single statement's own look-up of the head, which must see every earlier
/// change of the key.
///
/// Used by the group-commit writer alone (see ``WriterLocal``).
final class PendingSets {
    private struct Row {
        var revision: Int64
        var historyID: Int64
        var previous: Int64
        var expires: Int64?
        var key: Range<Int>
        var value: Range<Int>
    }

    /// The most rows one statement writes. Rows are written by statements
    /// of power-of-two sizes up to it: a few prepared statements, and a
    /// batch of n Sets takes at most n / 64 + 6 runs of each.
    static let statementRows = 64

    private var rows: [Row] = []
    /// The rows' keys and JSON texts, one after the other.
    private var bytes: [UInt8] = []
    /// The statements for 1, 2, 4, ... ``statementRows`` rows, by log2 of the size.
    private var statements: [(history: SQLiteStatement, upsert: SQLiteStatement)?]

    init() {
        statements = Array(repeating: nil, count: Self.statementRows.trailingZeroBitCount + 1)
    }

    var isEmpty: Bool { rows.isEmpty }
    var count: Int { rows.count }

    /// Holds a Set of `key` to `value` at `revision`, its history row
    /// `historyID` linked to `previous`.
    func append(key: String, value: JSONValue, expires: Int64?, revision: Int64, historyID: Int64, previous: Int64) {
        let keyStart = bytes.count
        bytes.append(contentsOf: key.utf8)
        let valueStart = bytes.count
        value.encode(into: &bytes)
        rows.append(
            Row(
                revision: revision, historyID: historyID, previous: previous, expires: expires,
                key: keyStart..<valueStart, value: valueStart..<bytes.count))
    }

    /// Forgets every row held (their batch is abandoned, or they are written).
    func removeAll() {
        rows.removeAll(keepingCapacity: true)
        // A batch of large values leaves no large buffer behind it.
        bytes.removeAll(keepingCapacity: bytes.capacity <= Self.keptBytes)
    }

    /// The most buffer kept from one batch to the next.
    private static let keptBytes = 1 << 20

    /// Writes every row held, in order: the history rows, then the upserts
    /// (a key held twice gets both history rows, then its later value).
    /// Holds none afterwards, whether it succeeded or not.
    func write(on connection: SQLiteConnection) throws {
        defer { removeAll() }
        try bytes.withUnsafeBufferPointer { buffer in
            var first = 0
            var size = Self.statementRows
            while first < rows.count {
                while size > rows.count - first { size /= 2 }
                let (history, upsert) = try prepared(rows: size, on: connection)
                let written = rows[first..<first + size]
                try execute(history, written, from: buffer, parametersPerRow: 4) { texts, base, row in
                    try history.bind(base + 1, row.historyID)
                    try texts.bind(base + 2, row.key)
                    try texts.bind(base + 3, row.value)
                    try history.bind(base + 4, row.previous)
                }
                try execute(upsert, written, from: buffer, parametersPerRow: 5) { texts, base, row in
                    try texts.bind(base + 1, row.key)
                    try texts.bind(base + 2, row.value)
                    try upsert.bind(base + 3, row.revision)
                    try upsert.bind(base + 4, row.revision)
                    try upsert.bind(base + 5, row.expires)
                }
                first += size
            }
        }
    }

    /// Binds `rows` to `statement`, `bind` given each row and the number of
    /// the parameter before its first, and runs it.
    private func execute(
        _ statement: SQLiteStatement, _ rows: ArraySlice<Row>, from buffer: UnsafeBufferPointer<UInt8>,
        parametersPerRow: Int32, bind: (SQLiteStatement.TextBinder, Int32, Row) throws -> Void
    ) throws {
        try statement.withTexts(from: buffer) { texts in
            for (offset, row) in rows.enumerated() { try bind(texts, Int32(offset) * parametersPerRow, row) }
            try statement.execute()
        }
    }

    /// The statements writing `rows` rows (a power of two), prepared once.
    /// They are the writer's single-Set statements (``WriterStatements``)
    /// with `previous` bound, for many rows.
    private func prepared(
        rows: Int, on connection: SQLiteConnection
    ) throws(SQLiteError) -> (history: SQLiteStatement, upsert: SQLiteStatement) {
        let slot = rows.trailingZeroBitCount
        if let existing = statements[slot] { return existing }
        let history = try connection.statement(
            "\(WriterStatements.historyInto) VALUES "
                + repeatElement("(?, ?, 'set', ?, NULL, ?)", count: rows).joined(separator: ", ")
                + " \(WriterStatements.historyConflict)")
        let upsert = try connection.statement(
            "\(WriterStatements.upsertInto) VALUES "
                + repeatElement("(?, ?, ?, ?, NULL, ?)", count: rows).joined(separator: ", ")
                + " \(WriterStatements.upsertConflict)")
        statements[slot] = (history, upsert)
        return (history, upsert)
    }
}
