public import PropdCore

/// Runs the announcements of one committed batch (``PropertyStorage/answerBatches(within:)``).
public typealias AnswerScope = @Sendable (_ answers: () -> Void) -> Void

/// Runs `answers` inside `scope`, or directly when there is none: how every
/// store applies its ``AnswerScope``.
public func answering(within scope: AnswerScope?, _ answers: () -> Void) {
    if let scope { scope(answers) } else { answers() }
}

/// What propd's service needs of a store: the seam where a cluster's store
/// (`EtcdPropertyStorage`, on etcd) takes the place of ``PropertyStore``,
/// SQLite, the embedded default.
///
/// Three parts:
/// - **Writes** go in batches. ``submit(_:)`` queues a body, in a
///   ``WriteSubmission`` that says who is writing, never how to commit;
///   the store runs the bodies serially, each at the next revision, with a ``WriteTransaction`` over the batch's
///   ``WriteBatchStorage``, and commits the batch as one unit: each
///   request's own changes, the values its bindings derive, operator
///   state, bindings and the commands table together. A body that throws
///   consumes no revision and is rolled back alone; a failed commit fails
///   every request of the batch with the same ``StoreError``. After each
///   commit, and before any caller is answered, the ``onCommit(_:)``
///   observer gets the batch's change sets in revision order.
/// - **Reads** see one committed snapshot each and report the revision
///   they saw: current properties (``get(_:)``, ``list(pattern:limit:)``),
///   one key's past (``history(of:limit:before:)``, from which the service
///   answers reads at a past revision), every change since a revision
///   (``changes(after:limit:)``, never with a gap), and the tables the
///   binding engine is restored from.
/// - **Reports**: the last committed ``revision``, ``statistics``, sizes,
///   and ``StoreError`` for every failure, named for what went wrong.
///
/// ```swift
/// let store: any PropertyStorage = try PropertyStore(path: path)
/// let service = try PropertyService(store: store, logger: logger)
/// ```
public protocol PropertyStorage: AnyObject, Sendable {
    /// Durability, history retention and limits.
    var configuration: StoreConfiguration { get }

    // MARK: Writing

    /// Queues `submission` as one write request and calls its completion
    /// exactly once, when its fate is known: after its batch committed (or
    /// failed), or at once when the body threw. Requests submitted one after
    /// another from one thread run in that order. The store alone decides
    /// where and when it commits, from ``WriteSubmission/origin`` (a store
    /// that commits remotely may batch every origin alike; one that commits
    /// locally may commit a loop's lone writes on that loop).
    func submit<T: Sendable>(_ submission: consuming WriteSubmission<T>)
    /// Queues `write`, a request that is its own body and answer, as
    /// ``submit(_:)`` queues a submission: its `run` and then its `finish`
    /// are called as a submission's body and completion would be, or its
    /// `fail` if it never runs. One object from the submitter to the
    /// writer, where a submission is three.
    func submit(_ write: any QueuedWrite, rollback: WriteRollback, origin: WriteOrigin)
    /// Calls `observer` after each commit with the batch's change sets, in
    /// revision order, before the batch's callers are answered.
    func onCommit(_ observer: (@Sendable ([ChangeSet]) -> Void)?)
    /// Runs, for each committed batch, the ``onCommit(_:)`` observer and the
    /// answers to the batch's callers inside `scope`, on the thread that
    /// tells them (`nil`: directly). A server whose answers wake other
    /// threads holds those wake-ups back in `scope` until the whole batch
    /// is answered: one per thread woken, not one per answer.
    func answerBatches(within scope: AnswerScope?)
    /// Calls `observer` when the store skipped revisions the commit observer
    /// will never get: it read the whole space again at `revision` (a
    /// cluster node whose watch fell behind etcd's compaction), and the
    /// change sets after `revision` follow. A store that publishes every
    /// revision (SQLite) never calls it.
    func onChangesSkipped(_ observer: (@Sendable (_ revision: Revision) -> Void)?)
    /// Keeps history whole after the revision `floor` returns.
    func retainHistory(after floor: (@Sendable () -> Revision?)?)
    /// Keeps at least `keep` values per key in history from the next commit on.
    func setHistoryPerKey(_ keep: Int)
    /// Refuses further writes with ``StoreError/closed``; queued ones still commit.
    func close()

    // MARK: Reading

    /// The named properties in the order asked (`nil` for a missing key),
    /// and the revision they were read at.
    func get(_ keys: [Key]) throws(StoreError) -> (properties: [Property?], revision: Revision)
    /// The properties matching `pattern` (all when `nil`), sorted by key, at
    /// most `limit`, and the revision they were read at.
    func list(pattern: KeyPattern?, limit: Int?) throws(StoreError) -> (properties: [Property], revision: Revision)
    /// Past changes of `key`, newest first: at most `limit`, only revisions
    /// below `before` when given.
    func history(of key: Key, limit: Int?, before: Revision?) throws(StoreError) -> [Event]
    /// Every change set after `since`, in revision order, and the revision
    /// they were read at; ``StoreError/compacted(since:oldest:)`` rather than
    /// a sequence with a gap.
    func changes(after since: Revision, limit: Int?) throws(StoreError)
        -> (changeSets: [ChangeSet], revision: Revision)
    /// ``changes(after:limit:)`` for a caller on Swift's cooperative pool: a
    /// store whose past is remote (etcd) awaits it instead of blocking the
    /// thread, which the pool (one thread per core) may need to finish it.
    func fetchChanges(after since: Revision, limit: Int?) async throws(StoreError)
        -> (changeSets: [ChangeSet], revision: Revision)
    /// ``history(of:limit:before:)`` for a caller on Swift's cooperative pool,
    /// as ``fetchChanges(after:limit:)``.
    func fetchHistory(of key: Key, limit: Int?, before: Revision?) async throws(StoreError) -> [Event]
    /// The oldest revision from which history is complete.
    func oldestCompleteRevision() throws(StoreError) -> Revision
    /// Every declared binding, sorted by key.
    func bindings() throws(StoreError) -> [BindingRecord]
    /// The stored operator state of every binding.
    func bindingStates() throws(StoreError) -> [Key: JSONValue]
    /// Every key that expires, with its deadline (milliseconds since the epoch).
    func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)]
    /// Every command ever served or executed, sorted by name.
    func commandNames() throws(StoreError) -> [Key]

    // MARK: Reports

    /// The last committed revision (0 before any write).
    var revision: Revision { get }
    /// Figures of the writer since the store was opened.
    var statistics: WriteStatistics { get }
    /// How many keys exist.
    func keyCount() throws(StoreError) -> Int
    /// How many bindings are declared.
    func bindingCount() throws(StoreError) -> Int
    /// The bytes the store occupies on disk.
    var databaseBytes: Int { get }
}

extension PropertyStorage {
    /// A store that publishes every revision never skips any.
    public func onChangesSkipped(_ observer: (@Sendable (_ revision: Revision) -> Void)?) {}

    /// A local store reads its past at once (SQLite: one WAL snapshot).
    public func fetchChanges(after since: Revision, limit: Int?) async throws(StoreError)
        -> (changeSets: [ChangeSet], revision: Revision)
    {
        try changes(after: since, limit: limit)
    }

    /// A local store reads its past at once (SQLite: one WAL snapshot).
    public func fetchHistory(of key: Key, limit: Int?, before: Revision?) async throws(StoreError) -> [Event] {
        try history(of: key, limit: limit, before: before)
    }

    /// ``list(pattern:limit:)`` without a limit.
    public func list(pattern: KeyPattern? = nil) throws(StoreError) -> (properties: [Property], revision: Revision) {
        try list(pattern: pattern, limit: nil)
    }

    /// ``history(of:limit:before:)`` without a limit.
    public func history(of key: Key, before: Revision? = nil) throws(StoreError) -> [Event] {
        try history(of: key, limit: nil, before: before)
    }

    /// ``changes(after:limit:)`` without a limit.
    public func changes(after since: Revision) throws(StoreError) -> (changeSets: [ChangeSet], revision: Revision) {
        try changes(after: since, limit: nil)
    }
}

extension PropertyStore: PropertyStorage {}
