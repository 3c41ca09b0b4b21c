import GRDB
import PropdCore
import Synchronization

/// The single writer. Concurrent requests queue up; whoever finds the writer
/// idle starts a drain on GRDB's writer queue, which takes everything pending
/// (up to `maximumBatch`), runs it as ONE SQLite transaction (one fsync), each
/// request in its own savepoint, commits, tells the observer, resumes the
/// callers, and loops while requests are pending. No timers: a batch is
/// whatever arrived while the previous one was being written.
final class GroupCommit: Sendable {
    typealias Observer = @Sendable ([ChangeSet]) -> Void

    private struct Queue {
        var pending: [WriteJob] = []
        var draining = false
        var closed = false
        var observer: Observer?
    }

    /// What only the writer changes (and others may read).
    struct WriterState {
        var revision: Revision
        var statistics = WriteStatistics()
    }

    private let pool: DatabasePool
    private let path: String
    private let maximumBatch: Int
    private let queue = Mutex(Queue())
    /// Prepared on the first batch; used only by the writer, batch after batch.
    private let writer: WriterLocal
    let state: Mutex<WriterState>

    init(pool: DatabasePool, path: String, configuration: StoreConfiguration, revision: Revision, horizon: Revision) {
        self.pool = pool
        self.path = path
        self.maximumBatch = configuration.maximumBatch
        self.state = Mutex(WriterState(revision: revision))
        self.writer = WriterLocal(
            compaction: HistoryCompaction(keep: configuration.historyPerKey, horizon: horizon))
    }

    deinit {
        // Finalize the prepared statements before the pool closes the writer
        // connection: unfinalized statements would keep it (and the file) open.
        // Nothing else can be using them: the writer holds `self` while it runs.
        writer.statements = nil
    }

    func setObserver(_ observer: Observer?) {
        queue.withLock { $0.observer = observer }
    }

    func submit(_ job: WriteJob) {
        let outcome: (start: Bool, closed: Bool) = queue.withLock { queue in
            if queue.closed { return (false, true) }
            queue.pending.append(job)
            if queue.draining { return (false, false) }
            queue.draining = true
            return (true, false)
        }
        if outcome.closed {
            job.fail(.closed)
        } else if outcome.start {
            pool.asyncWriteWithoutTransaction { db in self.drain(db) }
        }
    }

    /// Refuses new requests; those already queued still run.
    func close() {
        queue.withLock { $0.closed = true }
    }

    private func drain(_ db: Database) {
        while true {
            let (batch, observer): ([WriteJob], Observer?) = queue.withLock { queue in
                if queue.pending.isEmpty {
                    queue.draining = false
                    return ([], nil)
                }
                if queue.pending.count <= maximumBatch {
                    var taken: [WriteJob] = []
                    swap(&taken, &queue.pending)
                    return (taken, queue.observer)
                }
                let taken = Array(queue.pending.prefix(maximumBatch))
                queue.pending.removeFirst(maximumBatch)
                return (taken, queue.observer)
            }
            if batch.isEmpty { return }
            commit(batch, db: db, observer: observer)
        }
    }

    /// Runs one batch as one transaction and answers every request in it.
    private func commit(_ batch: [WriteJob], db: Database, observer: Observer?) {
        let prepared: WriterStatements
        if let existing = writer.statements {
            prepared = existing
        } else {
            do {
                prepared = try WriterStatements(db)
                writer.statements = prepared
            } catch {
                let failure = StoreError(operating: error, path: path)
                for job in batch { job.fail(failure) }
                return
            }
        }
        commit(batch, db: db, statements: prepared, observer: observer)
    }

    private func commit(_ batch: [WriteJob], db: Database, statements: WriterStatements, observer: Observer?) {
        let startRevision = state.withLock { $0.revision }
        let failure = BatchFailure()
        var revision = startRevision
        var committed: [(changeSet: ChangeSet, completion: WriteJob.Completion)] = []
        committed.reserveCapacity(batch.count)
        var ran = 0
        var rejected = 0
        var step = HistoryCompaction.Step(horizon: writer.compaction.horizon)

        do {
            try statements.begin.execute()
            for job in batch {
                if job.needsSavepoint { try statements.savepoint.execute() }
                var transaction = WriteTransaction(
                    db: db, statements: statements, revision: revision.next, path: path, batch: failure)
                let completion = job.run(&transaction)
                ran += 1
                if let completion {
                    // Appended first: from here on, this caller is answered by the batch's outcome.
                    committed.append((transaction.changeSet, completion))
                    if let storageFailure = failure.failure { throw storageFailure }
                    if job.needsSavepoint { try statements.release.execute() }
                    revision = revision.next
                } else {
                    if let storageFailure = failure.failure { throw storageFailure }
                    if job.needsSavepoint {
                        try statements.rollbackToSavepoint.execute()
                        try statements.release.execute()
                    } else if !transaction.changes.isEmpty {
                        // It wrote, then failed, with nothing to roll back to alone.
                        throw StoreError.storage(code: -1, message: "a write failed after its first change")
                    }
                    rejected += 1
                }
            }
            if revision > startRevision {
                statements.setRevision.bind(1, revision.rawValue)
                try statements.setRevision.execute()
                step = try writer.compaction.trim(statements.compaction, limit: 4 + committed.count / 4)
            }
            try statements.commit.execute()
        } catch {
            abandon(batch, ran: ran, committed: committed, error: StoreError(operating: error, path: path), db: db)
            return
        }

        let changeSets = committed.map(\.changeSet)
        writer.compaction.committed(step)
        writer.compaction.note(changeSets)
        state.withLock { state in
            state.revision = revision
            state.statistics.batches += 1
            state.statistics.requests += committed.count
            state.statistics.rejected += rejected
            state.statistics.largestBatch = max(state.statistics.largestBatch, committed.count)
        }
        if !changeSets.isEmpty { observer?(changeSets) }
        resume(committed)
    }

    /// Resuming a caller enqueues its task on the global executor; from the
    /// writer's thread every enqueue may wake a pool thread (a futex syscall
    /// and a context switch each). Past a few callers, one task resumes them
    /// all from inside the pool instead, and the writer moves on to the next batch.
    private func resume(_ committed: [(changeSet: ChangeSet, completion: WriteJob.Completion)]) {
        if committed.count <= 2 {
            for (changeSet, completion) in committed { completion(.success(changeSet)) }
            return
        }
        Task {
            for (changeSet, completion) in committed { completion(.success(changeSet)) }
        }
    }

    /// The storage failed: roll back everything and fail every request of the
    /// batch that is still waiting, with the same named error.
    private func abandon(
        _ batch: [WriteJob], ran: Int, committed: [(changeSet: ChangeSet, completion: WriteJob.Completion)],
        error: StoreError, db: Database
    ) {
        if db.isInsideTransaction {
            try? db.execute(sql: "ROLLBACK")
        }
        state.withLock { state in
            state.statistics.failedBatches += 1
        }
        for (_, completion) in committed {
            completion(.failure(error))
        }
        for job in batch[ran...] {
            job.fail(error)
        }
    }
}
