import CSQLite

/// A failure SQLite reported: its result code and message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (SQLITE_IOERR_FSYNC, ...).
    let code: Int32
    let message: String
    /// The statement that failed, when there was one.
    let sql: String?

    init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The error `code` left on `connection` (its message, when it has one).
    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: code, message: message, sql: sql)
    }

    /// What went wrong, in the terms the store names its errors by.
    enum Kind: Sendable {
        case full, corrupt, notADatabase, readOnly, cannotOpen, other
    }

    var kind: Kind {
        switch code & 0xFF {
        case SQLITE_FULL: return .full
        case SQLITE_CORRUPT: return .corrupt
        case SQLITE_NOTADB: return .notADatabase
        case SQLITE_READONLY, SQLITE_PERM: return .readOnly
        case SQLITE_CANTOPEN: return .cannotOpen
        default: return .other
        }
    }

    /// The primary result code (SQLITE_FULL, SQLITE_IOERR, ...).
    var primaryCode: Int32 { code & 0xFF }

    var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " (in \(String(reflecting: $0)))" } ?? "")
    }
}
