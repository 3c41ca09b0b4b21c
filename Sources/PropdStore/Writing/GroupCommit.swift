import PropdCore
import Synchronization

/// The single writer. Concurrent requests queue up; whoever finds the writer
/// idle starts a drain on the writer's queue, which takes everything pending
/// (up to `maximumBatch`), runs it as ONE SQLite transaction (one fsync), each
/// request that could fail half-way in its own savepoint, commits, tells the
/// observer, resumes the callers, runs a due WAL checkpoint, and loops while
/// requests are pending. No timers: a batch is whatever arrived while the
/// previous one was being written.
///
/// A request may also be queued *for the end of a loop's tick*: it starts
/// nothing, and the first such request of a tick schedules one commit on
/// that loop, which commits what is pending on the loop's thread once the
/// tick's reads are done. Writes are then committed and answered without
/// crossing to another thread and back (on a 2-vCPU VM each wake-up of
/// another thread costs tens of microseconds). A request that must not
/// commit on the loop (a pipelined call's, unless the loop serves its
/// connection alone) may be queued so too: the tick's end then wakes the
/// writer, once, for everything the tick read, rather than its first
/// request waking it while the loop still reads the rest.
/// ``PropertyStore/submit(_:)`` decides which requests go this way.
final class GroupCommit: Sendable {
    typealias Observer = @Sendable ([ChangeSet]) -> Void

    /// Who is told of a committed batch, and how: the observer, then the
    /// callers, both inside `answerScope` when there is one.
    struct BatchHooks: Sendable {
        var observer: Observer?
        var answerScope: AnswerScope?
    }

    private struct Queue {
        var pending: [WriteJob] = []
        /// A drain runs: on the writer queue, or inline in
        /// ``commitPending(endingTickOf:)``.
        var draining = false
        /// The loops (by ``WriteLoop/identity``) with an end-of-tick commit
        /// scheduled: one per loop and tick, however many requests it read.
        var tickLoops: [ObjectIdentifier] = []
        /// Those of `tickLoops` whose tick queued a request that must commit
        /// on the writer: their tick's end wakes the writer instead.
        var writerTicks: [ObjectIdentifier] = []
        /// Each loop's end-of-tick commit, made the first time the loop
        /// schedules one and handed over again at every tick after. It
        /// holds the writer weakly (it is kept here); `keptForTicks` holds
        /// it while one is scheduled, as a closure made per tick would.
        var tickCommits: [ObjectIdentifier: EndOfTickCommit] = [:]
        var keptForTicks: GroupCommit?
        var closed = false
        var hooks = BatchHooks()
        /// The revision after which history must stay whole, if any (see
        /// ``PropertyStore/retainHistory(after:)``).
        var historyFloor: (@Sendable () -> Revision?)?
        /// A new `historyPerKey` for the writer to take at its next batch.
        var historyPerKey: Int?
    }

    /// A loop's end-of-tick commit, as the closure it is: a dictionary of
    /// bare closures would hand each out behind a thunk allocated at every
    /// look-up (a generic container stores a function at its most general
    /// abstraction).
    struct EndOfTickCommit: Sendable {
        let run: @Sendable () -> Void
    }

    /// What only the writer changes (and others may read).
    struct WriterState {
        var revision: Revision
        var statistics = WriteStatistics()
    }

    private let writerQueue: WriterQueue
    private let path: String
    private let maximumBatch: Int
    private let queue = Mutex(Queue())
    /// Prepared on the first batch; used only by the writer, batch after batch.
    private let writer: WriterLocal
    /// Hooked to the writer connection with the first batch.
    let checkpointer: WALCheckpointer
    let state: Mutex<WriterState>

    init(writer writerQueue: WriterQueue, path: String, configuration: StoreConfiguration, revision: Revision, horizon: Revision) {
        self.writerQueue = writerQueue
        self.path = path
        self.maximumBatch = configuration.maximumBatch
        self.state = Mutex(WriterState(revision: revision))
        self.writer = WriterLocal(
            compaction: HistoryCompaction(keep: configuration.historyPerKey, horizon: horizon))
        self.checkpointer = WALCheckpointer()
    }

    deinit {
        // Release the prepared statements with the writer connection:
        // unfinalized statements would keep it (and the file) open.
        // Nothing else can be using them: the writer holds `self` while it runs.
        writer.statements = nil
    }

    func setObserver(_ observer: Observer?) {
        queue.withLock { $0.hooks.observer = observer }
    }

    func setAnswerScope(_ scope: AnswerScope?) {
        queue.withLock { $0.hooks.answerScope = scope }
    }

    func setHistoryPerKey(_ keep: Int) {
        queue.withLock { $0.historyPerKey = keep }
    }

    func setHistoryFloor(_ floor: (@Sendable () -> Revision?)?) {
        queue.withLock { $0.historyFloor = floor }
    }

    /// Queues `job`; an idle writer starts draining at once on the writer's queue.
    func submit(_ job: WriteJob) {
        let outcome: (start: Bool, closed: Bool) = queue.withLock { queue in
            if queue.closed { return (false, true) }
            queue.pending.append(job)
            if queue.draining { return (false, false) }
            queue.draining = true
            return (true, false)
        }
        if outcome.closed {
            job.request.fail(StoreError.closed)
        } else if outcome.start {
            startDrain()
        }
    }

    /// Queues `job` for the end of `loop`'s current tick (call it on `loop`):
    /// it starts nothing; the tick's first such request schedules the
    /// tick's commit on the loop. Unless `committingThere`, the tick's end
    /// wakes the writer instead, for everything pending. A drain already
    /// running takes it too.
    func submit(_ job: WriteJob, atEndOfTickOn loop: any WriteLoop, committingThere: Bool) {
        let identity = loop.identity
        enum Outcome { case queued, closed, schedule(EndOfTickCommit) }
        let outcome: Outcome = queue.withLock { queue in
            if queue.closed { return .closed }
            queue.pending.append(job)
            if !committingThere, !queue.writerTicks.contains(identity) { queue.writerTicks.append(identity) }
            if queue.tickLoops.contains(identity) { return .queued }
            queue.tickLoops.append(identity)
            queue.keptForTicks = self
            if let commit = queue.tickCommits[identity] { return .schedule(commit) }
            let commit = EndOfTickCommit { [weak self] in
                self?.commitPending(endingTickOf: loop)
            }
            queue.tickCommits[identity] = commit
            return .schedule(commit)
        }
        switch outcome {
        case .queued: break
        case .closed: job.request.fail(StoreError.closed)
        case .schedule(let commit): loop.executeAfterTick(commit.run)
        }
    }

    /// A loop's end-of-tick commit: commits what is pending on the calling
    /// thread, when the writer is idle, at most ``tickCommitLimit`` requests
    /// are pending (on a loop that serves one connection, a batch's
    /// maximum) and the tick queued none that must commit on the writer,
    /// and answers their callers there. Otherwise what is pending goes to
    /// the writer queue's drain, so the loop goes on reading while it
    /// commits; a busy writer takes it anyway. A due checkpoint always goes
    /// to the writer queue.
    ///
    /// > Important: this blocks the loop for a commit or two.
    func commitPending(endingTickOf loop: any WriteLoop) {
        let identity = loop.identity
        let servingOneConnection = loop.servesOneConnection
        enum Start { case none, inline, queue }
        let start: Start = queue.withLock { queue in
            queue.tickLoops.removeAll { $0 == identity }
            let forWriter = queue.writerTicks.contains(identity)
            if forWriter { queue.writerTicks.removeAll { $0 == identity } }
            // The caller holds `self` while this runs.
            if queue.tickLoops.isEmpty { queue.keptForTicks = nil }
            if queue.draining || queue.pending.isEmpty { return .none }
            queue.draining = true
            let limit = servingOneConnection ? maximumBatch : Self.tickCommitLimit
            return !forWriter && queue.pending.count <= limit ? .inline : .queue
        }
        switch start {
        case .none: return
        case .queue: return startDrain()
        case .inline: break
        }
        writerQueue.sync { connection in
            // Never empty: only the drainer takes, and that is us.
            if var taken = takeBatch(endingDrain: false) {
                commit(taken.batch, connection: connection, hooks: taken.hooks, answeredOn: loop)
                keepAsSpare(&taken.batch)
            }
        }
        let more = queue.withLock { queue in
            if queue.pending.isEmpty, !checkpointer.isDue {
                queue.draining = false
                return false
            }
            return true
        }
        if more { startDrain() }
    }

    /// The most pending requests an end-of-tick commit commits on its loop's
    /// thread (public as ``PropertyStore/tickCommitLimit``): every lone Set of a tick
    /// that read one call from each of 16 connections, with no hand-over to
    /// the writer's thread and back; a larger burst commits on the writer's
    /// thread while the loop reads on. Against 4, with one loop: 43.7k
    /// against 38.2k Sets/s with one in flight on each of 16 connections,
    /// 18.2 against 23.0 µs of CPU per Set; 64 gave the same as 16. A loop
    /// that serves one connection is not held to it (see
    /// ``commitPending(endingTickOf:)``).
    static let tickCommitLimit = 16

    /// Refuses new requests; those already queued (for a tick's end too) still run.
    func close() {
        let start = queue.withLock { queue in
            queue.closed = true
            // A tick's commit a stopped loop will never run must not keep
            // the writer: what it would take, the drain below takes.
            queue.keptForTicks = nil
            if queue.draining || queue.pending.isEmpty { return false }
            queue.draining = true
            return true
        }
        if start { startDrain() }
    }

    /// Starts the writer queue's drain; the caller has set `draining`.
    private func startDrain() {
        writerQueue.async { connection in self.drain(connection) }
    }

    private func drain(_ connection: SQLiteConnection) {
        while true {
            // The last batch's callers are answered: the log's copy delays only the next batch.
            if checkpointer.isDue { checkpointer.checkpoint(connection) }
            guard var taken = takeBatch(endingDrain: true) else { return }
            commit(taken.batch, connection: connection, hooks: taken.hooks, answeredOn: nil)
            keepAsSpare(&taken.batch)
        }
    }

    /// Empties a committed batch's array and keeps its storage for the
    /// requests queued after the next batch is taken.
    private func keepAsSpare(_ batch: inout [WriteJob]) {
        batch.removeAll(keepingCapacity: true)
        swap(&batch, &writer.spareBatch)
    }

    /// The next batch, in arrival order; `nil` when none is pending, and
    /// then, when `endingDrain`, the writer queue's drain is over. Called
    /// by the drainer only, holding the writer.
    private func takeBatch(endingDrain: Bool) -> (batch: [WriteJob], hooks: BatchHooks)? {
        queue.withLock { queue in
            if queue.pending.isEmpty {
                if endingDrain { queue.draining = false }
                return nil
            }
            if queue.pending.count <= maximumBatch {
                var taken: [WriteJob] = []
                swap(&taken, &writer.spareBatch)
                swap(&taken, &queue.pending)
                return (taken, queue.hooks)
            }
            let taken = Array(queue.pending.prefix(maximumBatch))
            queue.pending.removeFirst(maximumBatch)
            return (taken, queue.hooks)
        }
    }

    /// Runs one batch as one transaction and answers every request in it:
    /// on the writer's thread, or, given the loop whose tick ends, on that
    /// loop, its answers sent as soon as they are given.
    private func commit(
        _ batch: [WriteJob], connection: SQLiteConnection, hooks: BatchHooks, answeredOn loop: (any WriteLoop)?
    ) {
        let prepared: WriterStatements
        if let existing = writer.statements {
            prepared = existing
        } else {
            do {
                prepared = try WriterStatements(connection)
                writer.statements = prepared
                // Only commits of this writer follow, and they hold `self`
                // (and so the checkpointer) while they run.
                checkpointer.install(on: connection)
            } catch {
                let failure = StoreError(operating: error, path: path)
                for job in batch { job.request.fail(failure) }
                return
            }
        }
        commit(batch, connection: connection, statements: prepared, hooks: hooks, answeredOn: loop)
    }

    private func commit(
        _ batch: [WriteJob], connection: SQLiteConnection, statements: WriterStatements, hooks: BatchHooks,
        answeredOn loop: (any WriteLoop)?
    ) {
        let resumeInline = loop != nil
        let startRevision = state.withLock { $0.revision }
        let storage = SQLiteWriteBatch(
            connection: connection, statements: statements, heads: writer.heads, rowIDs: writer.rowIDs, path: path)
        var revision = startRevision
        var committed: [(changeSet: ChangeSet, request: any QueuedWrite)] = []
        committed.reserveCapacity(batch.count)
        var ran = 0
        var rejected = 0
        var resumingTasks = 0
        var step: HistoryCompaction.Step?

        // Left by an abandoned batch, if any.
        statements.pendingSets.removeAll()
        do {
            try statements.begin.execute()
            for job in batch {
                storage.requestHasSavepoint = false
                if job.needsSavepoint { try storage.openSavepoint() }
                var transaction = WriteTransaction(storage: storage, revision: revision.next)
                let succeeded = job.request.run(&transaction)
                ran += 1
                if succeeded {
                    // Appended first: from here on, this caller is answered by the batch's outcome.
                    committed.append((transaction.changeSet, job.request))
                    if job.resumesTask { resumingTasks += 1 }
                    if let storageFailure = storage.storageFailure { throw storageFailure }
                    if storage.requestHasSavepoint { try statements.release.execute() }
                    revision = revision.next
                } else {
                    if let storageFailure = storage.storageFailure { throw storageFailure }
                    if storage.requestHasSavepoint {
                        // Written, then rolled back with the rest of the request.
                        try storage.writePendingSets()
                        try statements.rollbackToSavepoint.execute()
                        try statements.release.execute()
                        writer.heads.forgetAll()
                    } else if !transaction.changes.isEmpty {
                        // It wrote, then failed, with nothing to roll back to alone.
                        throw StoreError.storage(code: -1, message: "a write failed after its first change")
                    }
                    rejected += 1
                }
            }
            try storage.writePendingSets()
            if revision > startRevision {
                // The last revision is the newest history row's, unless the
                // batch ends in revisions that changed nothing (a Bind that
                // derives no value): only then is the counter written, which
                // spares the page it lives on in every other commit.
                if committed.last?.changeSet.changes.isEmpty ?? false {
                    try statements.setRevision.bind(1, revision.rawValue)
                    try statements.setRevision.execute()
                }
                if let keep = queue.withLock({ queue in defer { queue.historyPerKey = nil }; return queue.historyPerKey }) {
                    writer.compaction.setKeep(keep)
                }
                if writer.compaction.passDue {
                    let floor = queue.withLock { $0.historyFloor }?()
                    step = try writer.compaction.pass(statements.compaction, floor: floor)
                }
            }
            try statements.commit.execute()
        } catch {
            abandon(
                batch, ran: ran, committed: committed, error: StoreError(operating: error, path: path),
                connection: connection)
            return
        }

        let changeSets = committed.map(\.changeSet)
        if let step { writer.compaction.committed(step) }
        state.withLock { state in
            state.revision = revision
            state.statistics.batches += 1
            if resumeInline { state.statistics.inlineBatches += 1 }
            state.statistics.requests += committed.count
            state.statistics.rejected += rejected
            state.statistics.largestBatch = max(state.statistics.largestBatch, committed.count)
        }
        answering(within: hooks.answerScope) {
            if !changeSets.isEmpty { hooks.observer?(changeSets) }
            resume(committed, tasks: resumingTasks, inline: resumeInline)
        }
        // What is left delays no caller: the answers are out (a pipelining
        // client reads them meanwhile), and on the writer's thread they are
        // handed to their loops. The batch's requests are released after it.
        loop?.sendAnswers()
        writer.compaction.note(changeSets)
    }

    /// Answers the batch's callers. Resuming a task enqueues it on the
    /// global executor, and from the writer's thread every enqueue may wake
    /// a pool thread (a futex syscall and a context switch each): past a few
    /// such callers, one task resumes them all from inside the pool instead,
    /// and the writer moves on to the next batch. Other completions (a
    /// server's, which enqueue on an event loop) are called directly, as are
    /// all of a batch committed `inline` by an end-of-tick commit, whose
    /// callers are mostly that event loop's.
    private func resume(_ committed: [(changeSet: ChangeSet, request: any QueuedWrite)], tasks: Int, inline: Bool) {
        if inline || tasks <= 2 {
            for (changeSet, request) in committed { request.finish(.success(changeSet)) }
            return
        }
        Task {
            for (changeSet, request) in committed { request.finish(.success(changeSet)) }
        }
    }

    /// The storage failed: roll back everything and fail every request of the
    /// batch that is still waiting, with the same named error.
    private func abandon(
        _ batch: [WriteJob], ran: Int, committed: [(changeSet: ChangeSet, request: any QueuedWrite)],
        error: StoreError, connection: SQLiteConnection
    ) {
        if connection.isInsideTransaction {
            // A failed ROLLBACK leaves nothing to do: SQLite rolls back a
            // transaction it cannot go on with, and the next BEGIN says so.
            try? connection.execute("ROLLBACK")
        }
        writer.heads.forgetAll()
        state.withLock { state in
            state.statistics.failedBatches += 1
        }
        for (_, request) in committed {
            request.finish(.failure(error))
        }
        for job in batch[ran...] {
            job.request.fail(error)
        }
    }
}
