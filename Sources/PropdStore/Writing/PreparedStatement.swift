import GRDB
import GRDBSQLite

/// A statement of the write hot path, prepared once on the writer's
/// connection and bound and stepped through the SQLite C API: no argument
/// arrays, no statement-cache lookups per write.
///
/// Used by one thread at a time: the writer (GRDB's serial writer queue), or
/// whoever holds the ``ReadConnection`` it was prepared on.
final class PreparedStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    init(_ connection: OpaquePointer, _ sql: String) throws(DatabaseError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// SQLite copies the bytes (SQLITE_TRANSIENT), so they need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ text: String?) {
        guard var text else {
            sqlite3_bind_null(handle, index)
            return
        }
        text.withUTF8 { utf8 in
            _ = sqlite3_bind_text(handle, index, utf8.baseAddress, Int32(utf8.count), Self.transient)
        }
    }

    func bind(_ index: Int32, utf8 bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            _ = sqlite3_bind_text(handle, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
        }
    }

    /// Steps once and reads the first row, if any, with `read`.
    func withFirstRow<T>(_ read: (OpaquePointer) -> T) throws(DatabaseError) -> T? {
        let code = sqlite3_step(handle)
        defer { sqlite3_reset(handle) }
        switch code {
        case SQLITE_ROW: return read(handle)
        case SQLITE_DONE: return nil
        default:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// Steps through the rows, calling `body` with the statement for each,
    /// while `body` returns true.
    func forEachRow(_ body: (OpaquePointer) throws -> Bool) throws {
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            switch code {
            case SQLITE_ROW: if try !body(handle) { return }
            case SQLITE_DONE: return
            default:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
            }
        }
    }

    /// Runs the statement to completion; returns the number of rows changed.
    @discardableResult
    func execute() throws(DatabaseError) -> Int {
        let code = sqlite3_step(handle)
        defer { sqlite3_reset(handle) }
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
        }
        return Int(sqlite3_changes(connection))
    }
}

extension PreparedStatement {
    /// Runs a query whose first row's first column is an integer; `nil` when there is no row.
    func int64() throws(DatabaseError) -> Int64? {
        try withFirstRow { handle in sqlite3_column_int64(handle, 0) }
    }

    /// Runs a query whose first row's first column is an integer or NULL:
    /// `nil` when there is no row, `.some(nil)` for NULL.
    func optionalInt64() throws(DatabaseError) -> Int64?? {
        try withFirstRow { handle in
            sqlite3_column_type(handle, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, 0)
        }
    }
}

/// The hot-path statements of one writer connection.
final class WriterStatements {
    let begin: PreparedStatement
    let commit: PreparedStatement
    let savepoint: PreparedStatement
    let release: PreparedStatement
    let rollbackToSavepoint: PreparedStatement
    let setRevision: PreparedStatement
    let upsert: PreparedStatement
    /// The head of an existing key's history chain: its revision, or NULL
    /// for a derived key declared without a value (its head is elsewhere).
    let headOfProperty: PreparedStatement
    let delete: PreparedStatement
    /// Appends to history. Run BEFORE the change to `properties`: the row's
    /// `previous` is ?6 when bound, else the key's head as the rule of
    /// `schema/003_history_chain.sql` finds it. A second change of the same
    /// key in the same revision replaces the first row and keeps its `previous`.
    let appendHistory: PreparedStatement
    let recordDeletedHead: PreparedStatement
    let revisionOfKey: PreparedStatement
    let compaction: CompactionStatements

    init(_ db: Database) throws(DatabaseError) {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the writer connection is closed")
        }
        begin = try PreparedStatement(connection, "BEGIN IMMEDIATE")
        commit = try PreparedStatement(connection, "COMMIT")
        savepoint = try PreparedStatement(connection, "SAVEPOINT request")
        release = try PreparedStatement(connection, "RELEASE request")
        rollbackToSavepoint = try PreparedStatement(connection, "ROLLBACK TO request")
        setRevision = try PreparedStatement(connection, "UPDATE meta SET value = ?1 WHERE name = 'revision'")
        upsert = try PreparedStatement(connection, """
            INSERT INTO properties (key, value, revision, created, error, expires) VALUES (?1, ?2, ?3, ?3, NULL, ?4)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision, error = NULL,
                expires = excluded.expires
            """)
        // Not `DELETE ... RETURNING`: SQLite collects the returned rows in a
        // temporary table, built anew at each step (and SQLite 3.40 answers
        // `value IS NULL` wrongly there).
        headOfProperty = try PreparedStatement(connection, """
            SELECT CASE WHEN value IS NULL AND error IS NULL THEN NULL ELSE revision END FROM properties WHERE key = ?1
            """)
        delete = try PreparedStatement(connection, "DELETE FROM properties WHERE key = ?1")
        appendHistory = try PreparedStatement(connection, """
            INSERT INTO history (revision, key, kind, value, error, previous) VALUES (?1, ?2, ?3, ?4, ?5, coalesce(?6,
                (SELECT revision FROM properties WHERE key = ?2 AND (value IS NOT NULL OR error IS NOT NULL)),
                (SELECT revision FROM deleted_heads WHERE key = ?2)))
            ON CONFLICT (revision, key) DO UPDATE SET kind = excluded.kind, value = excluded.value, error = excluded.error
            """)
        recordDeletedHead = try PreparedStatement(connection, """
            INSERT INTO deleted_heads (key, revision) VALUES (?1, ?2)
            ON CONFLICT (key) DO UPDATE SET revision = excluded.revision
            """)
        revisionOfKey = try PreparedStatement(connection, "SELECT revision FROM properties WHERE key = ?1")
        compaction = try CompactionStatements(connection)
    }
}
