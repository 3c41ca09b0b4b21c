import Foundation
public import PropdCore

/// propd's durable store: properties, their history, bindings and binding
/// state in one SQLite database (WAL), written through group commit.
///
/// ```swift
/// let store = try PropertyStore(path: path, configuration: StoreConfiguration(durability: .full))
/// let committed = try await store.write(WriteRequest(set: [try Key("room.temp"): 21]))
/// committed.revision                       // 1
/// try store.get([try Key("room.temp")])    // ([Property(room.temp = 21, revision 1)], revision: 1)
/// ```
///
/// Reads never wait for the writer: each runs on its own WAL snapshot and
/// reports the revision it saw. Writes are acknowledged only once durable.
public final class PropertyStore: Sendable {
    /// The database file.
    public let path: String
    public let configuration: StoreConfiguration
    /// The one connection that writes, on its serial queue.
    let writer: WriterQueue
    let groupCommit: GroupCommit
    /// Every read runs on one of these.
    let readConnections: ReadConnections

    /// Opens (creating if needed) the database at `path` and applies the
    /// migrations of `schema/` it lacks.
    ///
    /// Refuses, leaving the file untouched: a file that is not SQLite
    /// (``StoreError/notADatabase(path:)``), an SQLite database propd did not
    /// create (``StoreError/notAPropdDatabase(path:)``), one from a newer
    /// propd (``StoreError/newerSchema(path:unknownMigrations:knownMigrations:)``),
    /// a damaged one (``StoreError/corrupt(path:message:)``); and one it
    /// cannot write (``StoreError/readOnly(path:message:)``).
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration()) throws(StoreError) {
        self.path = path
        self.configuration = configuration
        try DatabaseInspection.check(path: path)

        let connection: SQLiteConnection
        let start: (revision: Revision, horizon: Revision)
        do {
            connection = try SQLiteConnection(path: path, mode: .create, coalescingLogWrites: true)
            try Self.configure(connection, configuration)
            try Migrations.migrate(connection)
            let counters = try connection.strings(
                "SELECT name FROM meta WHERE name IN ('revision', 'history_horizon') AND typeof(value) = 'integer'")
            guard Set(counters) == ["revision", "history_horizon"] else {
                throw StoreError.corrupt(path: path, message: "the meta table lacks the revision counters")
            }
            start = (try Self.committedRevision(connection), Revision(try Self.historyHorizon(connection)))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(opening: error, path: path)
        }
        writer = WriterQueue(connection)
        readConnections = ReadConnections(path: path)
        groupCommit = GroupCommit(
            writer: writer, path: path, configuration: configuration, revision: start.revision, horizon: start.horizon)
    }

    /// The writer connection's settings: foreign keys enforced (a binding
    /// file's mark goes with its binding), the configured durability and
    /// size cap, the write-ahead log (readers never wait for the writer),
    /// and a wait of up to a second for a lock another connection holds
    /// for a moment (the last connection of a store released in this
    /// process checkpoints and removes the log under an exclusive lock)
    /// instead of failing the batch. Shorter than a reader's wait: a
    /// tick's commit holds its event loop while it waits.
    private static func configure(_ connection: SQLiteConnection, _ configuration: StoreConfiguration) throws {
        try connection.setBusyTimeout(milliseconds: 1_000)
        try connection.execute("PRAGMA foreign_keys = ON")
        try connection.execute("PRAGMA synchronous = \(configuration.durability == .full ? "FULL" : "NORMAL")")
        if let maximumBytes = configuration.maximumDatabaseBytes {
            let pageSize = try connection.prepare("PRAGMA page_size").int64() ?? 4096
            try connection.execute("PRAGMA max_page_count = \(max(1, Int64(maximumBytes) / pageSize))")
        }
        try connection.enableWAL()
    }

    /// The writer connection's `PRAGMA synchronous` (2 = FULL, 1 = NORMAL).
    func writerSynchronous() throws -> Int {
        try writer.sync { connection in Int(try connection.prepare("PRAGMA synchronous").int64() ?? -1) }
    }

    /// The migrations this build knows, in order (`001_initial`, ...).
    public static var knownMigrations: [String] { Migrations.identifiers }

    /// The last committed revision (0 before any write).
    public var revision: Revision { groupCommit.state.withLock { $0.revision } }

    /// Figures of the group-commit writer since the store was opened.
    public var statistics: WriteStatistics {
        var statistics = groupCommit.state.withLock { $0.statistics }
        statistics.backgroundCheckpoints = groupCommit.checkpointer.completed
        return statistics
    }

    /// Refuses further writes with ``StoreError/closed``; requests already
    /// queued still commit. The file is closed when the store is released.
    public func close() {
        groupCommit.close()
    }

    /// Runs `body` on the writer inside a transaction shared with the other
    /// requests that arrived meanwhile (group commit), and returns once that
    /// transaction is durable.
    ///
    /// Bodies run serially in arrival order, each in its own savepoint. A body
    /// that throws is rolled back alone, consumes no revision, and its error is
    /// rethrown here. A body that returns becomes exactly one new revision,
    /// even when it changed nothing. When the commit itself fails (disk full,
    /// I/O error), every request of the batch throws the same ``StoreError``
    /// and nothing of the batch is visible.
    ///
    /// ```swift
    /// let committed = try await store.write { tx in
    ///     try tx.set(try Key("a"), 1)
    ///     try tx.set(try Key("b"), 2)   // same revision as a
    /// }
    /// ```
    /// > Important: the body runs on the writer; keep it short and never block in it.
    /// > Cancelling the calling task does not withdraw a queued request.
    @discardableResult
    public func write<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction) throws -> T
    ) async throws -> Committed<T> {
        try await write(body, rollback: .savepoint)
    }

    /// ``write(_:)`` with the choice of ``WriteRollback``.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction) throws -> T, rollback: WriteRollback
    ) async throws -> Committed<T> {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Committed<T>, any Error>) in
            // Unsafe continuation: `submit` calls its completion exactly once.
            submit(WriteSubmission(body, rollback: rollback, origin: .task) { continuation.resume(with: $0) })
        }
    }

    /// Calls `observer` on the writer after each batch is durable, with the
    /// batch's change sets in revision order, before any caller of the batch
    /// is resumed: events can be published in revision order without a
    /// second queue. Replaces any earlier observer; `nil` removes it.
    /// > Important: the observer runs on the writer; it must not block or write.
    public func onCommit(_ observer: (@Sendable ([ChangeSet]) -> Void)?) {
        groupCommit.setObserver(observer)
    }

    /// Runs each batch's observer and answers inside `scope`, on the writer
    /// (or the loop that committed the batch at its tick's end).
    public func answerBatches(within scope: AnswerScope?) {
        groupCommit.setAnswerScope(scope)
    }

    /// Keeps at least `keep` values per key in history from the next commit on
    /// (`history-per-key` changed by a reload).
    public func setHistoryPerKey(_ keep: Int) {
        groupCommit.setHistoryPerKey(keep)
    }

    /// Keeps history whole after the revision `floor` returns (asked before
    /// each trim; `nil` for no floor): compaction then removes no change
    /// above it, whatever `historyPerKey` says, so a consumer that must
    /// resume from that revision with `since` loses nothing.
    public func retainHistory(after floor: (@Sendable () -> Revision?)?) {
        groupCommit.setHistoryFloor(floor)
    }
}
