import PropdCore
import PropdEtcd
import PropdStore

/// A write request in the writer's hands, its result type erased; it runs
/// again after a lost race.
struct WriteJob: Sendable {
    /// Answers the request once its fate is known.
    typealias Answer = @Sendable (Result<ChangeSet, any Error>) -> Void

    /// It must not overlap the requests around it: it is sent once every
    /// earlier request is acknowledged, and no later one before it is.
    var ordered: Bool
    /// Runs the body; returns how to answer, or `nil` when the body threw
    /// (and the request is answered already).
    var run: @Sendable (inout WriteTransaction) -> Answer?
    /// Answers without running: the store is closed.
    var refuse: @Sendable (any Error) -> Void
}

/// What reaches the writer (``WriterInbox``).
enum WriterEvent: Sendable {
    case submitted(WriteJob)
    /// The transaction of request `sequence` came back.
    case sent(UInt64, EtcdPropertyStorage.SendOutcome)
    /// After a failed request: the mirror has every revision acknowledged.
    case caughtUp
    /// The store closes: finish what was submitted, stop, then call `finished`.
    case closing(finished: @Sendable () -> Void)
}

/// The node's writer: runs each request's body on the space as the
/// requests before it leave it, and keeps up to ``maxInFlight`` of their
/// transactions in flight to etcd at once.
///
/// Requests that touch different rows overlap; a request that read a row an
/// earlier one writes is sent once that one is acknowledged, with its compare
/// on the row filled in from the acknowledged revision. A request that must
/// keep its place (``WriteJob/ordered``: a connection's pipelined call,
/// a timer, one that read a whole table) waits for every earlier one and
/// holds back every later one. When a transaction fails (a lost race, etcd
/// unavailable), every request whose body ran after it and is not sent yet
/// runs again, in order, once the sent ones came back and the mirror caught
/// up — the binding engine is rebuilt first, as its memory saw writes that
/// did not happen.
final class WritePipeline {
    /// How many requests may be sent or waiting to be sent.
    static let maxInFlight = 64

    private struct Entry {
        enum State {
            case held, sent, acknowledged(Int64)
        }

        var job: WriteJob
        var answer: WriteJob.Answer
        var request: EtcdWriteBatch.Request
        var changes: [Change]
        /// Per guard (by index), the pending requests whose revisions its compare waits for.
        var waitingOn: [Int: Set<UInt64>]
        /// Per guard (by index), the newest revision of those already acknowledged.
        var resolved: [Int: Int64]
        var ordered: Bool
        var state: State
    }

    private let storage: EtcdPropertyStorage
    private var space: WriterSpace
    private var entries: [UInt64: Entry] = [:]
    /// The entries' sequence numbers, ascending: the order their bodies ran.
    private var order: [UInt64] = []
    private var unacknowledged = 0
    private var waiting: [WriteJob] = []
    private var waitingStart = 0
    /// Requests to run again, by their previous sequence number, before any waiting one.
    private var reruns: [(sequence: UInt64, job: WriteJob)] = []
    /// How far the recovery from a failed transaction is; no body runs meanwhile.
    private enum Recovery {
        /// Some sent transactions have not come back yet.
        case awaitingSent
        /// The mirror is catching up with every acknowledged revision.
        case catchingUp
    }

    private var recovery: Recovery?
    private var rebuildEngine = false
    private var lastExpected: Int64 = 0
    /// The revision the last body was told, when it was refused: the next
    /// body is told the same, so an engine it changed is rebuilt (``EngineState``).
    private var refusedExpected: Int64?
    private var newestAcknowledged: Int64 = 0
    /// Set once the store closes: what to call when the writer finished.
    private var closing: (@Sendable () -> Void)?
    private var finishing = false
    /// Inside ``handle(_:)``: an event that comes up meanwhile is posted, not handled within.
    private var handling = false

    init(storage: EtcdPropertyStorage) {
        self.storage = storage
        space = WriterSpace(layout: storage.mirror.layout)
    }

    /// Handles one of the writer's events, on the writer's loop
    /// (``WriterInbox``); once the store closed and every request
    /// submitted before is answered, the writer finishes.
    func handle(_ event: WriterEvent) {
        handling = true
        defer { handling = false }
        switch event {
        case .submitted(let job):
            if finishing { job.refuse(StoreError.closed) } else { waiting.append(job) }
        case .sent(let sequence, let outcome): sent(sequence, outcome)
        case .caughtUp: caughtUp()
        case .closing(let finished): closing = finished
        }
        pump()
        if let finished = closing, isIdle, !finishing {
            finishing = true
            // Acknowledged requests are answered once the mirror has them.
            let writer = storage.writer
            storage.mirror.whenDelivered(newestAcknowledged) {
                writer.loop.execute {
                    writer.writerFinished()
                    finished()
                }
            }
        }
    }

    private var isIdle: Bool {
        unacknowledged == 0 && reruns.isEmpty && waitingStart == waiting.count && recovery == nil
    }

    // MARK: Running bodies

    private func pump() {
        guard recovery == nil else { return }
        while unacknowledged < Self.maxInFlight, let job = nextJob() {
            prepare(job)
        }
        sendReady()
    }

    private func nextJob() -> WriteJob? {
        if !reruns.isEmpty { return reruns.removeFirst().job }
        guard waitingStart < waiting.count else { return nil }
        let job = waiting[waitingStart]
        waitingStart += 1
        if waitingStart > 1024, waitingStart * 2 > waiting.count {
            waiting.removeFirst(waitingStart)
            waitingStart = 0
        }
        return job
    }

    /// Runs `job`'s body on the space as the requests before it leave it.
    private func prepare(_ job: WriteJob) {
        for sequence in space.catchUp(with: storage.mirror) { applied(sequence) }
        let sequence = storage.sequence.add(1, ordering: .relaxed).newValue
        guard let (answer, request, changes, expected) = runBody(job, sequence: sequence) else { return }
        lastExpected = expected
        var waitingOn: [Int: Set<UInt64>] = [:]
        var resolved: [Int: Int64] = [:]
        // A row a pending request wrote (or deleted: it reads as absent)
        // is compared once that request's revision is known.
        for (index, row) in request.guards.enumerated() where row.modRevision <= 0 {
            for writer in space.writers(of: row.place) {
                if case .acknowledged(let revision)? = entries[writer]?.state {
                    resolved[index] = max(resolved[index] ?? 0, revision)
                } else {
                    waitingOn[index, default: []].insert(writer)
                }
            }
        }
        entries[sequence] = Entry(
            job: job, answer: answer, request: request, changes: changes, waitingOn: waitingOn, resolved: resolved,
            ordered: job.ordered || request.readWholeTables, state: .held)
        order.append(sequence)
        unacknowledged += 1
        space.add(sequence, request.operations)
    }

    /// The body's run, its transaction, and the revision it was told;
    /// `nil` when it was refused (and answered). Its own scope, so the
    /// batch's copy of the space is gone before the space changes again.
    private func runBody(_ job: WriteJob, sequence: UInt64)
        -> (WriteJob.Answer, EtcdWriteBatch.Request, [Change], Int64)?
    {
        let foreign = storage.mirror.shared.withLock { $0.foreignEngineChange }
        let seen = storage.engineSeen.exchange(space.space.revision, ordering: .relaxed)
        let changedElsewhere = rebuildEngine || foreign > seen
        rebuildEngine = false
        // Revisions told to bodies only grow, but for a body after one that
        // was refused: the engine learns from that reuse that it ran ahead.
        let expected = refusedExpected ?? max(space.space.revision, lastExpected) + 1
        refusedExpected = nil
        let batch = EtcdWriteBatch(layout: space.layout, base: space.space)
        var transaction = WriteTransaction(
            storage: batch, revision: Revision(expected), spaceChangedElsewhere: changedElsewhere)
        guard let answer = job.run(&transaction) else {
            storage.counters.withLock { $0.rejected += 1 }
            refusedExpected = expected
            return nil
        }
        do {
            let request = try batch.request(
                transaction: storage.mirror.transactionID(sequence), maxOperations: storage.maxOperations)
            return (answer, request, transaction.changes, expected)
        } catch {
            storage.counters.withLock { $0.rejected += 1 }
            refusedExpected = expected
            answer(.failure(error))
            return nil
        }
    }

    // MARK: Sending

    /// Sends every held request whose compares are known and whose place allows.
    private func sendReady() {
        var earlierUnacknowledged = false
        var afterOrdered = false
        // The entries are read in place: copied out, each would be retained
        // and released field by field.
        for sequence in order {
            guard let index = entries.index(forKey: sequence) else { continue }
            let ordered = entries.values[index].ordered
            switch entries.values[index].state {
            case .held:
                if entries.values[index].waitingOn.isEmpty, !afterOrdered, !(ordered && earlierUnacknowledged) {
                    send(sequence, entries.values[index])
                }
            case .sent: break
            case .acknowledged: continue
            }
            earlierUnacknowledged = true
            if ordered { afterOrdered = true }
        }
    }

    private func send(_ sequence: UInt64, _ entry: Entry) {
        setState(.sent, of: sequence)
        let compares = entry.request.compares(resolved: entry.resolved)
        let operations = entry.request.operations
        let (answer, changes) = (entry.answer, entry.changes)
        let storage = storage
        storage.send(compares, operations, marker: entry.request.marker, number: sequence).assumeIsolated().whenSuccess {
            [self] outcome in
            if case .committed(let revision) = outcome {
                storage.mirror.applyOwn(operations, at: revision)
                storage.mirror.whenDelivered(revision) {
                    answer(.success(storage.mirror.changeSet(at: revision)
                        ?? ChangeSet(revision: Revision(revision), changes: changes)))
                }
            }
            // In the turn that read the reply, unless the outcome came while
            // the writer was busy (a transaction that failed at once).
            if handling {
                storage.writer.post(.sent(sequence, outcome))
            } else {
                handle(.sent(sequence, outcome))
            }
        }
    }

    // MARK: Outcomes

    private func sent(_ sequence: UInt64, _ outcome: EtcdPropertyStorage.SendOutcome) {
        guard let entry = entries[sequence] else { return }
        unacknowledged -= 1
        switch outcome {
        case .committed(let revision):
            storage.counters.withLock { counters in
                counters.requests += 1
                counters.batches += 1
                counters.largestBatch = max(counters.largestBatch, unacknowledged + 1)
            }
            newestAcknowledged = max(newestAcknowledged, revision)
            if space.isPending(sequence) {
                setState(.acknowledged(revision), of: sequence)
            } else {
                forget(sequence)
            }
            resolve(sequence, at: revision)
        case .raced:
            entries[sequence] = nil
            recover(rerunning: (sequence, entry.job))
        case .failed(let error):
            storage.counters.withLock { $0.failedBatches += 1 }
            entries[sequence] = nil
            entry.answer(.failure(error))
            recover(rerunning: nil)
        }
        catchUpWhenQuiet()
    }

    /// Sets an entry's state in place: through the subscript and `?`, the
    /// change would cost a heap-allocated accessor frame (an entry is large).
    private func setState(_ state: Entry.State, of sequence: UInt64) {
        guard let index = entries.index(forKey: sequence) else { return }
        entries.values[index].state = state
    }

    /// Fills in the compares waiting for request `sequence`'s revision.
    private func resolve(_ sequence: UInt64, at revision: Int64) {
        for waiter in order {
            guard let position = entries.index(forKey: waiter), case .held = entries.values[position].state,
                !entries.values[position].waitingOn.isEmpty
            else { continue }
            for (index, writers) in entries.values[position].waitingOn where writers.contains(sequence) {
                entries.values[position].resolved[index] = max(entries.values[position].resolved[index] ?? 0, revision)
                if writers.count == 1 {
                    entries.values[position].waitingOn[index] = nil
                } else {
                    entries.values[position].waitingOn[index]?.remove(sequence)
                }
            }
        }
    }

    /// Request `sequence` is in the mirror and the writer's space.
    private func applied(_ sequence: UInt64) {
        guard case .acknowledged? = entries[sequence]?.state else { return }
        forget(sequence)
    }

    private func forget(_ sequence: UInt64) {
        entries[sequence] = nil
        // Every pass over `order` looks each sequence up: the forgotten ones
        // go once they are as many as the live ones (amortized, one per forget).
        if order.count > 2 * entries.count + 8 { order.removeAll { entries.index(forKey: $0) == nil } }
    }

    /// After a failed transaction: every held request runs again, after
    /// the sent ones came back and the mirror caught up with them.
    private func recover(rerunning failed: (UInt64, WriteJob)?) {
        var again = reruns
        if let failed { again.append(failed) }
        for sequence in order {
            guard let entry = entries[sequence], case .held = entry.state else { continue }
            again.append((sequence, entry.job))
            entries[sequence] = nil
            unacknowledged -= 1
        }
        reruns = again.sorted { $0.sequence < $1.sequence }
        if recovery == nil { recovery = .awaitingSent }
    }

    private func catchUpWhenQuiet() {
        guard recovery == .awaitingSent, unacknowledged == 0 else { return }
        recovery = .catchingUp
        let writer = storage.writer
        storage.mirror.whenDelivered(newestAcknowledged) { writer.post(.caughtUp) }
    }

    private func caughtUp() {
        space.reset(to: storage.mirror.restartWriter())
        entries = [:]
        order = []
        recovery = nil
        rebuildEngine = true
    }
}
