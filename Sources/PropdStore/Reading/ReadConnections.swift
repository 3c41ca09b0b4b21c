import PropdCore
import Synchronization

/// The store's read-only SQLite connections: each keeps its statements
/// prepared, and a read is one `BEGIN`, the queries, one `COMMIT`.
///
/// WAL mode lets these connections read concurrently with the writer and
/// with each other, each on its own snapshot. (A general-purpose pool's read
/// costs far more than the queries of a `Get`: reader bookkeeping, a
/// dispatch queue, and a savepoint and read-only mode set and reset on every
/// call.)
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
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws(StoreError) -> T {
        do {
            let reader = try idle.withLock({ $0.popLast() }) ?? ReadConnection(path: path)
            defer {
                idle.withLock { idle in
                    if idle.count < maximumIdle { idle.append(reader) }
                }
            }
            try reader.begin.execute()
            // COMMIT of a read transaction fails only when SQLite is misused;
            // the snapshot is released either way.
            defer { _ = try? reader.commit.execute() }
            return try body(reader.connection)
        } catch {
            throw StoreError(operating: error, path: path)
        }
    }
}

/// One read-only connection and its transaction statements.
///
/// `@unchecked Sendable`: a connection is used by one thread at a time. It
/// is taken out of ``ReadConnections``'s idle list under that list's lock,
/// used by the taker alone, and put back (under the lock) when it is done.
final class ReadConnection: @unchecked Sendable {
    let connection: SQLiteConnection
    let begin: SQLiteStatement
    let commit: SQLiteStatement

    init(path: String) throws(SQLiteError) {
        connection = try SQLiteConnection(path: path, mode: .readOnly())
        // A reader waits out the writer's brief exclusive moments (a log restart) instead of failing.
        try connection.setBusyTimeout(milliseconds: 5_000)
        begin = try connection.statement("BEGIN DEFERRED")
        commit = try connection.statement("COMMIT")
    }
}
