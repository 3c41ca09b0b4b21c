import CSQLite

/// One SQLite connection, owned: opened by `init`, closed when released.
/// Everything PropdStore says to SQLite goes through this type and
/// ``SQLiteStatement``, and every return code is checked.
///
/// Not `Sendable`: a connection is used by one thread at a time, which its
/// owner guarantees (the writer's serial queue, the readers' idle list).
final class SQLiteConnection {
    private let handle: OpaquePointer
    /// Statements prepared once and kept (see ``statement(_:)``).
    private var statements: [String: SQLiteStatement] = [:]

    /// How the file is opened.
    enum Mode {
        /// Read and write, creating the file when it is missing.
        case create
        /// Reads only; `uri` opens `path` as a `file:` URI (`immutable=1`, `mode=ro`).
        case readOnly(uri: Bool = false)
        /// Read and write an existing file.
        case readWrite
    }

    /// `coalescingLogWrites`: through the VFS that writes each transaction's
    /// log frames with one `pwrite(2)` (`Sources/CSQLite/WALCoalescingVFS.c`),
    /// for the connection that writes.
    init(path: String, mode: Mode, coalescingLogWrites: Bool = false) throws(SQLiteError) {
        var flags: Int32 = SQLITE_OPEN_NOMUTEX
        switch mode {
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly(let uri): flags |= SQLITE_OPEN_READONLY | (uri ? SQLITE_OPEN_URI : 0)
        }
        if coalescingLogWrites, Self.coalescingVFSRegistration != SQLITE_OK {
            throw SQLiteError(code: Self.coalescingVFSRegistration, message: "the log-coalescing VFS could not be registered")
        }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, coalescingLogWrites ? PROPD_WAL_COALESCING_VFS : nil)
        guard code == SQLITE_OK, let opened else {
            let error = SQLiteError(code: code, connection: opened)
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
        let extended = sqlite3_extended_result_codes(opened, 1)
        guard extended == SQLITE_OK else {
            let error = SQLiteError(code: extended, connection: opened)
            sqlite3_close_v2(opened)
            throw error
        }
    }

    /// Registered once, by the first connection that asks for it (a `static
    /// let` is initialized once, whichever thread gets there first).
    private static let coalescingVFSRegistration = propd_wal_coalescing_vfs_register()

    deinit {
        statements = [:]
        // `_v2`: should a statement outlive the connection, it closes once that is finalized.
        sqlite3_close_v2(handle)
    }

    // MARK: Statements

    /// `sql`, prepared on first use and kept for the connection's life: for
    /// statements run again and again.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let prepared = statements[sql] { return prepared }
        let prepared = try SQLiteStatement(handle, sql, persistent: true)
        statements[sql] = prepared
        return prepared
    }

    /// `sql`, prepared for one use.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(handle, sql, persistent: false)
    }

    /// Runs `sql`, which may hold several statements (a migration), ignoring any rows.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: message.map { String(cString: $0) } ?? "", sql: sql)
        }
    }

    /// The first column of every row of `sql`, as text (NULLs skipped).
    func strings(_ sql: String) throws -> [String] {
        var result: [String] = []
        try prepare(sql).forEachRow { row in
            if let text = row.text(0) { result.append(text) }
            return true
        }
        return result
    }

    // MARK: State

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Waits up to `milliseconds` for a lock held by another connection instead of failing at once.
    func setBusyTimeout(milliseconds: Int32) throws(SQLiteError) {
        let code = sqlite3_busy_timeout(handle, milliseconds)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle) }
    }

    // MARK: Write-ahead log

    /// Switches the file to the write-ahead log (kept in the file once set).
    /// - Throws: `SQLITE_READONLY` when the file cannot be switched (it
    ///   cannot be written).
    func enableWAL() throws {
        let mode = try strings("PRAGMA journal_mode = WAL")
        guard mode == ["wal"] else {
            throw SQLiteError(
                code: SQLITE_READONLY, message: "the write-ahead log cannot be enabled (journal mode \(mode))")
        }
    }

    enum CheckpointMode {
        /// Copies what it can without waiting for readers or writers.
        case passive
        /// Copies everything, waiting for readers, then truncates the log.
        case truncate
    }

    /// Copies the write-ahead log into the database file.
    func checkpoint(_ mode: CheckpointMode) throws(SQLiteError) {
        let code = sqlite3_wal_checkpoint_v2(
            handle, nil, mode == .passive ? SQLITE_CHECKPOINT_PASSIVE : SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle) }
    }

    /// The function SQLite calls after each commit with the pages now in the
    /// log; it returns `SQLITE_OK` (0).
    typealias WALHook = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32

    /// Calls `hook` with `context` after each commit. Installing a hook
    /// switches SQLite's own auto-checkpoint off.
    func setWALHook(_ hook: WALHook, context: UnsafeMutableRawPointer) {
        // Returns the previous hook's context, not a result code.
        _ = sqlite3_wal_hook(handle, hook, context)
    }
}
