import GRDB
import GRDBSQLite
import PropdCore
import Synchronization

/// Read-only SQLite connections of the store's own, for its hottest reads
/// (`get`, `list`): each keeps its statements prepared, and a read is one
/// `BEGIN`, the queries, one `COMMIT`, all through the C API.
///
/// GRDB's `DatabasePool.read` costs ~60 µs per call on this project's VM
/// (reader-pool bookkeeping, a dispatch queue, and a savepoint plus
/// read-only mode prepared, set and reset on every call), ten times the
/// queries of a `Get`. WAL mode lets these connections read concurrently
/// with the writer and with each other, each on its own snapshot.
final class ReadConnections: Sendable {
    private let path: String
    private let idle = Mutex<[ReadConnection]>([])
    /// Connections kept open between reads; more are opened while more
    /// threads read at once (the event loops, subscription backlogs).
    private let maximumIdle = 8

    init(path: String) {
        self.path = path
    }

    /// Runs `body` in one read transaction: every query sees one snapshot.
    func read<T>(_ body: (ReadConnection) throws -> T) throws(StoreError) -> T {
        do {
            let connection = try idle.withLock({ $0.popLast() }) ?? ReadConnection(path: path)
            defer {
                idle.withLock { idle in
                    if idle.count < maximumIdle { idle.append(connection) }
                }
            }
            try connection.begin.execute()
            defer { _ = try? connection.commit.execute() }
            return try body(connection)
        } catch {
            throw StoreError(operating: error, path: path)
        }
    }
}

/// One read-only connection and its prepared statements.
///
/// `@unchecked Sendable`: a connection is used by one thread at a time. It
/// is taken out of ``ReadConnections``'s idle list under that list's lock,
/// used by the taker alone, and put back (under the lock) when it is done.
final class ReadConnection: @unchecked Sendable {
    let handle: OpaquePointer
    let begin: PreparedStatement
    let commit: PreparedStatement
    private var statements: [String: PreparedStatement] = [:]

    init(path: String) throws(DatabaseError) {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(opened)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        // A reader waits out the writer's brief exclusive moments (a log restart) instead of failing.
        sqlite3_busy_timeout(opened, 5_000)
        handle = opened
        do {
            begin = try PreparedStatement(opened, "BEGIN DEFERRED")
            commit = try PreparedStatement(opened, "COMMIT")
        } catch {
            sqlite3_close_v2(opened)
            throw error
        }
    }

    deinit {
        statements = [:]
        // `_v2`: closes once `begin` and `commit` are finalized too, after this.
        sqlite3_close_v2(handle)
    }

    /// `sql`, prepared on first use and kept.
    func statement(_ sql: String) throws(DatabaseError) -> PreparedStatement {
        if let prepared = statements[sql] { return prepared }
        let prepared = try PreparedStatement(handle, sql)
        statements[sql] = prepared
        return prepared
    }
}
