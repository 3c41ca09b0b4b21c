import CSQLite

/// A prepared statement of an owned ``SQLiteConnection``: bound, stepped and
/// read through the C API, with no argument arrays or row objects, and every
/// return code checked.
///
/// Not `Sendable`: a statement belongs to its connection and is used by
/// whoever uses the connection (one thread at a time).
final class SQLiteStatement {
    private let handle: OpaquePointer
    /// The connection's handle, for error messages. The connection finalizes
    /// its statements before it closes, so this outlives every use.
    private let connection: OpaquePointer
    let sql: String

    init(_ connection: OpaquePointer, _ sql: String, persistent: Bool) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection, sql, -1, flags, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        // Returns the last step's error, already reported by that step.
        sqlite3_finalize(handle)
    }

    // MARK: Binding (parameters are numbered from 1, as `?1` in the SQL)

    /// SQLite copies the bytes (SQLITE_TRANSIENT), so they need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ index: Int32, _ value: Int64?) throws(SQLiteError) {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ index: Int32, _ text: String?) throws(SQLiteError) {
        guard var text else { return try check(sqlite3_bind_null(handle, index)) }
        let code = text.withUTF8 { utf8 in
            sqlite3_bind_text(handle, index, utf8.baseAddress, Int32(utf8.count), Self.transient)
        }
        try check(code)
    }

    /// Binds a literal in place (SQLITE_STATIC): its bytes live as long as the program.
    func bind(_ index: Int32, _ text: StaticString) throws(SQLiteError) {
        try check(sqlite3_bind_text(handle, index, text.utf8Start, Int32(text.utf8CodeUnitCount), Self.static))
    }

    /// Runs `body` with `text` bound at `index` in place: SQLite reads the
    /// string's own bytes (SQLITE_STATIC) instead of copying them, which the
    /// writer's hot statements would do for every key and value. Run the
    /// statement inside `body`: on return the parameter is NULL again, so
    /// the statement keeps no pointer to bytes that are gone.
    /// `nil` binds NULL for the duration.
    @discardableResult
    func withText<T>(_ index: Int32, _ text: String?, _ body: () throws -> T) throws -> T {
        guard var text else {
            try check(sqlite3_bind_null(handle, index))
            return try body()
        }
        return try text.withUTF8 { utf8 in try withText(index, utf8: utf8, body) }
    }

    /// Binds UTF-8 `bytes` as text for the time of `body`, in place, as
    /// ``withText(_:_:_:)`` binds a string; NULL when `bytes` is nil.
    func withText<T>(_ index: Int32, bytes: [UInt8]?, _ body: () throws -> T) throws -> T {
        guard let bytes else {
            try check(sqlite3_bind_null(handle, index))
            return try body()
        }
        return try bytes.withUnsafeBufferPointer { utf8 in try withText(index, utf8: utf8, body) }
    }

    private func withText<T>(_ index: Int32, utf8: UnsafeBufferPointer<UInt8>, _ body: () throws -> T) throws -> T {
        // An empty buffer may have no address, which SQLite would bind as NULL.
        guard let start = utf8.baseAddress else {
            try bind(index, "")
            return try body()
        }
        try check(sqlite3_bind_text(handle, index, start, Int32(utf8.count), Self.static))
        defer { _ = sqlite3_bind_null(handle, index) }
        return try body()
    }

    /// The bytes outlive the statement's use of them (see ``withText(_:_:_:)``).
    private static let `static` = unsafeBitCast(0, to: sqlite3_destructor_type.self)

    /// Runs `body`, in which the ``TextBinder`` it is given binds texts from
    /// `buffer` without copying them (SQLITE_STATIC); on return every
    /// parameter is NULL again, so the statement keeps no pointer into
    /// `buffer`. Run the statement inside `body`.
    func withTexts<T>(
        from buffer: UnsafeBufferPointer<UInt8>, _ body: (TextBinder) throws -> T
    ) throws -> T {
        defer { _ = sqlite3_clear_bindings(handle) }
        return try body(TextBinder(statement: self, buffer: buffer))
    }

    /// Binds ranges of one buffer as texts in place, for the time of
    /// ``withTexts(from:_:)``.
    /// > Important: valid only inside the closure it is passed to.
    struct TextBinder {
        fileprivate let statement: SQLiteStatement
        fileprivate let buffer: UnsafeBufferPointer<UInt8>

        /// Binds the UTF-8 bytes `range` of the buffer as text at `index`.
        func bind(_ index: Int32, _ range: Range<Int>) throws(SQLiteError) {
            try statement.bindStatic(index, UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }

    private func bindStatic(_ index: Int32, _ utf8: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        // An empty buffer may have no address, which SQLite would bind as NULL.
        guard let start = utf8.baseAddress else { return try bind(index, "") }
        try check(sqlite3_bind_text(handle, index, start, Int32(utf8.count), Self.static))
    }

    // MARK: Stepping

    /// Steps once and reads the first row, if any, with `read`.
    func withFirstRow<T>(_ read: (SQLiteRow) throws -> T) throws -> T? {
        defer { reset() }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return try read(SQLiteRow(handle))
        case SQLITE_DONE: return nil
        default: throw SQLiteError(code: code, connection: connection, sql: sql)
        }
    }

    /// Steps through the rows, calling `body` for each while it returns true.
    func forEachRow(_ body: (SQLiteRow) throws -> Bool) throws {
        defer { reset() }
        while true {
            let code = sqlite3_step(handle)
            switch code {
            case SQLITE_ROW: if try !body(SQLiteRow(handle)) { return }
            case SQLITE_DONE: return
            default: throw SQLiteError(code: code, connection: connection, sql: sql)
            }
        }
    }

    /// Runs the statement to completion; returns the number of rows changed.
    @discardableResult
    func execute() throws(SQLiteError) -> Int {
        defer { reset() }
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW { code = sqlite3_step(handle) }
        guard code == SQLITE_DONE else { throw SQLiteError(code: code, connection: connection, sql: sql) }
        return Int(sqlite3_changes(connection))
    }

    /// A query whose first row's first column is an integer; `nil` when there is no row.
    func int64() throws -> Int64? {
        try withFirstRow { row in row.int64(0) }
    }

    /// A query whose first row's first column is an integer or NULL: `nil`
    /// when there is no row, `.some(nil)` for NULL.
    func optionalInt64() throws -> Int64?? {
        try withFirstRow { row in row.isNull(0) ? nil : row.int64(0) }
    }

    // MARK: Internals

    private func check(_ code: Int32) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection, sql: sql) }
    }

    /// Ready for the next run. `sqlite3_reset` repeats the last step's
    /// error, which that step already reported; the bindings stay and are
    /// replaced by the next run's.
    private func reset() {
        _ = sqlite3_reset(handle)
    }
}

@available(*, unavailable, message: "a statement is used by its connection's user alone")
extension SQLiteStatement: Sendable {}

/// The current row of a statement being stepped.
/// > Important: valid only inside the closure it is passed to.
struct SQLiteRow {
    private let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }
    func isInteger(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_INTEGER }
    func isText(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_TEXT }

    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The column as text; `nil` for NULL.
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: bytes)
    }

    /// Calls `body` with the column's UTF-8 bytes in SQLite's own buffer
    /// (valid only during the call); `nil` for NULL.
    func withUTF8<T>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        return try body(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index))))
    }
}
