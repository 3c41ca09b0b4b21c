public import PropdCore
public import PropdEtcd
public import PropdStore
import Synchronization

/// A property space stored in etcd under one prefix: the cluster's
/// ``PropertyStorage``.
///
/// Every node runs one, on its own ``EtcdClient``, and they share the space:
///
/// - **Writes**: each request is one etcd transaction, so one revision
///   (etcd's, which skips numbers other writes use). The body runs on the
///   node's space as the requests before it leave it; the transaction
///   commits only if nothing the body read changed meanwhile (`mod_revision`
///   compares). Otherwise nothing is applied and the body runs again on the
///   newer space. Up to ``WritePipeline/maxInFlight`` transactions are in
///   flight at once (``WritePipeline``).
/// - **Reads** of the present come from the mirror, which one watch of the
///   prefix keeps current; a request is answered once its node's mirror
///   has it, so a connection reads its own writes. The past comes from
///   etcd's MVCC history; what etcd compacted is ``StoreError/compacted(since:oldest:)``.
/// - **Faults**: no quorum is ``StoreError/unavailable(message:)``; a write
///   whose outcome etcd could not say is looked up by its transaction id, so
///   it is neither lost nor applied twice; etcd's limits are
///   ``StoreError/limitExceeded(limit:maximum:)``.
///
/// ```swift
/// try await withEtcdClient(.init(endpoints: endpoints)) { etcd in
///     let store = try await EtcdPropertyStorage.open(etcd: etcd, prefix: "/propd/default")
///     defer { store.close() }
///     // PropertyService(store: store, ...)
/// }
/// ```
public final class EtcdPropertyStorage: PropertyStorage {
    public let configuration: StoreConfiguration
    /// The most operations one transaction may hold: etcd's `--max-txn-ops`.
    public let maxOperations: Int
    let etcd: EtcdClient
    let mirror: SpaceMirror
    let writer: WriterInbox
    let counters = Mutex(WriteStatistics())
    let sequence = Atomic<UInt64>(0)
    /// The writer's revision of the space when the previous request's body ran (writer only).
    let engineSeen = Atomic<Int64>(0)
    private let isClosed = Atomic<Bool>(false)
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Set by ``close()``: ends once the writer finished and the watch stopped.
    private let closing = Mutex<Task<Void, Never>?>(nil)

    /// Reads the space under `prefix` and starts following it.
    ///
    /// - Parameter maxOperations: the cluster's `--max-txn-ops` (128 unless
    ///   its operator changed it): a write needing more is refused by name.
    /// - Throws: ``StoreError/unavailable(message:)`` when etcd cannot be read.
    public static func open(
        etcd: EtcdClient, prefix: String, configuration: StoreConfiguration = StoreConfiguration(),
        maxOperations: Int = 128
    ) async throws(StoreError) -> EtcdPropertyStorage {
        let storage = EtcdPropertyStorage(
            etcd: etcd, layout: SpaceLayout(prefix: prefix), configuration: configuration, maxOperations: maxOperations)
        do {
            try await storage.mirror.load(from: etcd)
        } catch {
            throw StoreError(etcd: error)
        }
        storage.start()
        return storage
    }

    private init(etcd: EtcdClient, layout: SpaceLayout, configuration: StoreConfiguration, maxOperations: Int) {
        self.etcd = etcd
        self.configuration = configuration
        self.maxOperations = maxOperations
        var generator = SystemRandomNumberGenerator()
        mirror = SpaceMirror(layout: layout, node: String(generator.next() as UInt64, radix: 36))
        writer = WriterInbox(loop: etcd.transactionLoop)
    }

    private func start() {
        writer.start(self)
        let follower = Task { [self] in await follow() }
        tasks.withLock { $0 = [follower] }
    }

    /// Keeps the mirror current; after etcd compacted past it (a long
    /// disconnection), reads the space again.
    private func follow() async {
        var pause = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await mirror.follow(etcd)
            } catch let error as EtcdError where error.code == .compacted {
                // The revisions in between are gone: `changes(after:)` below
                // the new start is `compacted`, and the commit observer
                // never gets them, so it is told before the watch goes on
                // (the service ends every subscription with SlowConsumer).
                do {
                    try await mirror.load(from: etcd)
                    pause = .milliseconds(100)
                    let (skipped, revision) = mirror.shared.withLock { ($0.skipObserver, $0.space.revision) }
                    skipped?(Revision(revision))
                } catch {
                    // etcd is unreachable: the watch that follows fails
                    // again, and the read is retried at a slower pace.
                }
                // Anything may have changed: the next body's engine reads the space again.
                let observer = mirror.shared.withLock { shared in
                    shared.foreignEngineChange = shared.space.revision
                    return shared.foreignEngineObserver
                }
                observer?()
            } catch {
                // Cancelled, or a refusal the watch does not retry itself:
                // follow again from the mirror's revision, never give up.
                if Task.isCancelled { return }
            }
            // Retry pacing while etcd refuses, not a synchronization.
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
    }

    // MARK: Writing

    /// Each request is its own etcd transaction, its body run by this
    /// store's writer on the etcd client's transaction loop, in submission order
    /// (``WritePipeline``). A loop's lone call may overlap other requests;
    /// any other write keeps its place
    /// (``WriteJob/ordered``): a connection's pipelined calls commit in the
    /// order sent. Committing on an event loop at the end of its tick, as
    /// the SQLite store does for a loop's lone write, would block the loop
    /// on a round trip to an etcd quorum. Either rollback choice holds: a
    /// body that throws leaves its write batch unsent, so nothing of it
    /// reaches etcd. Specialized for `Void`, as ``PropertyStore/submit(_:)`` is.
    @_specialize(where T == Void)
    public func submit<T: Sendable>(_ submission: consuming WriteSubmission<T>) {
        let body = submission.body
        let completion = submission.completion
        post(from: submission.origin) { transaction in
            do {
                let value = try body(&transaction)
                return { outcome in completion(outcome.map { Committed(value: value, changeSet: $0) }) }
            } catch {
                completion(.failure(error))
                return nil
            }
        } refuse: { completion(.failure($0)) }
    }

    /// Queues `write` as ``submit(_:)`` queues a submission.
    public func submit(_ write: any QueuedWrite, rollback: WriteRollback, origin: WriteOrigin) {
        post(from: origin) { transaction -> WriteJob.Answer? in
            guard write.run(&transaction) else { return nil }
            return { outcome in write.finish(outcome) }
        } refuse: { error in write.fail(error) }
    }

    /// Hands a request to the writer, in its place unless its call was
    /// alone on its loop; refuses it at once when the store is closed.
    private func post(
        from origin: WriteOrigin, run: @escaping @Sendable (inout WriteTransaction) -> WriteJob.Answer?,
        refuse: @escaping @Sendable (any Error) -> Void
    ) {
        guard !isClosed.load(ordering: .acquiring) else { return refuse(StoreError.closed) }
        let alone = if case .loop(_, alone: true) = origin { true } else { false }
        writer.post(.submitted(WriteJob(ordered: !alone, run: run, refuse: refuse)))
    }

    public func onCommit(_ observer: (@Sendable ([ChangeSet]) -> Void)?) {
        mirror.shared.withLock { $0.observer = observer }
    }

    /// Runs each delivery of revisions (their observer calls and the
    /// answers of the requests waiting for them) inside `scope`.
    public func answerBatches(within scope: AnswerScope?) {
        mirror.shared.withLock { $0.answerScope = scope }
    }

    /// Calls `observer` after this node read the space again because etcd
    /// compacted past its watch (a long disconnection): the commit observer
    /// never gets the revisions in between.
    public func onChangesSkipped(_ observer: (@Sendable (Revision) -> Void)?) {
        mirror.shared.withLock { $0.skipObserver = observer }
    }

    /// Calls `observer` after each revision in which another node changed
    /// what a binding engine is built from (bindings, operator state,
    /// expiries, commands), once the mirror has it: the node that fires the
    /// space's deadlines reads them again.
    public func onForeignEngineChange(_ observer: (@Sendable () -> Void)?) {
        mirror.shared.withLock { $0.foreignEngineObserver = observer }
    }

    /// etcd's history is compacted by etcd (`--auto-compaction-*`) or its
    /// operator, for the whole cluster: one node cannot hold it back.
    public func retainHistory(after floor: (@Sendable () -> Revision?)?) {}

    /// etcd keeps every revision until it compacts: no per-key bound applies.
    public func setHistoryPerKey(_ keep: Int) {}

    public func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (running, writer) = (tasks.withLock { $0 }, writer)
        let closing = Task {
            // Queued writes still commit; then the watch stops.
            await withCheckedContinuation { finished in
                writer.post(.closing(finished: { finished.resume() }))
            }
            for task in running { task.cancel() }
        }
        self.closing.withLock { $0 = closing }
    }

    /// Returns once the store closed (``close()``) and every request
    /// submitted before was answered, its watch cancelled: the etcd client
    /// (and the loop the writer runs on) may be shut down then.
    public func closed() async {
        await closing.withLock { $0 }?.value
    }

    /// Returns once this node's mirror has every change up to `revision`
    /// (another node's write it was told of, say).
    public func wait(for revision: Revision) async {
        await mirror.wait(for: revision.rawValue)
    }

    // MARK: Reports

    public var revision: Revision { Revision(mirror.space.revision) }
    public var statistics: WriteStatistics { counters.withLock { $0 } }
    public func keyCount() throws(StoreError) -> Int { mirror.space.properties.count }
    public func bindingCount() throws(StoreError) -> Int { mirror.space.bindings.count }
    /// The space's bytes live in etcd (`etcdctl endpoint status` shows its size).
    public var databaseBytes: Int { 0 }
}
