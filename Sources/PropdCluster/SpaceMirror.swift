import PropdCore
import PropdEtcd
import PropdStore
import Synchronization

/// One node's copy of the property space, fed by one etcd watch of the
/// prefix from the revision it was read at, and by the node's own
/// transactions as etcd acknowledges them.
///
/// Every revision that touches the prefix is applied whole, in order; after
/// each, the commit observer gets its ``ChangeSet`` and then the writers
/// waiting for that revision resume — so a node's subscribers see every
/// node's writes in revision order, and a request is answered only once its
/// node can read it back. A revision of the node's own is applied from its
/// transaction as soon as the mirror stands at the revision before it (etcd
/// gave the transaction that whole revision), without waiting for the watch
/// to bring it back; the watch's copy is then skipped.
final class SpaceMirror: Sendable {
    /// What the lock guards besides the space itself.
    struct Shared: Sendable {
        var space = SpaceState()
        /// Recent change sets, oldest first: `changes(after:)` from memory.
        var recent: [ChangeSet] = []
        /// Changes after this revision are all in `recent`.
        var recentAfter: Int64 = 0
        /// This node's transaction ids seen (in `head` or a marking property row), with their revision.
        var ownTransactions: [UInt64: Int64] = [:]
        /// This node's acknowledged transactions the mirror is not at yet,
        /// by revision: each is applied once the mirror reaches the one before.
        var ownAhead: [Int64: [EtcdOperation]] = [:]
        /// Applied revisions not yet handed to the observers, in order.
        var undelivered: [Delivery] = []
        /// One thread at a time hands revisions to the observers, in order.
        var delivering = false
        /// Every revision up to this one reached the observers.
        var delivered: Int64 = 0
        /// Applied revisions the writer has not folded into its copy yet.
        var writerLog = WriterLog()
        /// Run once every revision up to theirs reached the observers.
        var waiters: [(revision: Int64, action: @Sendable () -> Void)] = []
        var observer: (@Sendable ([ChangeSet]) -> Void)?
        /// Each delivery runs inside it (``EtcdPropertyStorage/answerBatches(within:)``).
        var answerScope: AnswerScope?
        /// The last revision at which another node changed what a binding
        /// engine is built from (bindings, their state, expiries, commands).
        var foreignEngineChange: Int64 = 0
        /// Told of each such revision, once the mirror has it.
        var foreignEngineObserver: (@Sendable () -> Void)?
        /// Told when the space was read again after etcd compacted past the
        /// watch: `observer` never gets the revisions in between.
        var skipObserver: (@Sendable (Revision) -> Void)?
    }

    /// An applied revision on its way to the observers (`changeSet` is
    /// `nil` for a progress notification: nothing changed up to `revision`).
    struct Delivery: Sendable {
        var revision: Int64
        var changeSet: ChangeSet?
        var foreignEngineChange: Bool
    }

    /// The revisions applied since the writer last looked, so it can keep
    /// its own copy of the space current without copying the mirror's.
    struct WriterLog: Sendable {
        /// Each applied revision's events, and the node's own transaction
        /// sequence number when it was one of this node's.
        var revisions: [(revision: Int64, events: [EtcdEvent], own: UInt64?)] = []
        /// The space was read anew (or the log overflowed): the writer starts again from it.
        var restarted = true
    }

    let layout: SpaceLayout
    /// Identifies this node's transactions (`NODE-SEQUENCE`).
    let node: String
    /// How many change sets `recent` keeps.
    let recentLimit: Int
    let shared = Mutex(Shared())
    private let ownTransactionLimit: UInt64 = 4096
    /// How many revisions the writer's log holds before the writer must
    /// start again from the space (an idle writer).
    private let writerLogLimit = 4096

    init(layout: SpaceLayout, node: String, recentLimit: Int = 4096) {
        self.layout = layout
        self.node = node
        self.recentLimit = recentLimit
    }

    /// A copy of the space now.
    var space: SpaceState { shared.withLock { $0.space } }

    /// Reads the whole prefix at one revision and starts from it.
    func load(from etcd: EtcdClient) async throws {
        let read = try await etcd.range(layout.everything)
        var space = SpaceState()
        for kv in read.keyValues {
            let event = EtcdEvent(kind: .put, keyValue: kv)
            _ = space.apply(event, layout: layout)
            // A delete leaves no key, but its request put `head`.
            space.newestChange = max(space.newestChange, kv.modRevision)
        }
        space.revision = read.revision
        shared.withLock { shared in
            shared.space = space
            shared.recent = []
            shared.recentAfter = read.revision
            shared.ownAhead = shared.ownAhead.filter { $0.key > read.revision }
            shared.writerLog = WriterLog()
            shared.undelivered.append(Delivery(revision: read.revision, changeSet: nil, foreignEngineChange: false))
        }
        deliver()
    }

    /// Follows the prefix from the loaded revision until cancelled; throws
    /// etcd's `compacted` when it fell behind etcd's compaction.
    func follow(_ etcd: EtcdClient) async throws -> Never {
        let start = shared.withLock { $0.space.revision } + 1
        // The node's own revisions, applied from their replies, come back
        // on the watch too: passed over without decoding them.
        let knownThrough = { @Sendable [self] in shared.withLock { $0.space.revision } }
        try await etcd.watch(layout.everything, from: start, progressNotify: true, knownThrough: knownThrough) { [self] update in
            switch update {
            case .events(let events): apply(events)
            case .progress(let revision): advance(to: revision)
            }
        }
    }

    /// Applies the events of one or more whole revisions; a revision the
    /// mirror already has (one of this node's) is skipped.
    func apply(_ events: [EtcdEvent]) {
        var index = events.startIndex
        while index < events.endIndex {
            let revision = events[index].keyValue.modRevision
            var end = index
            while end < events.endIndex, events[end].keyValue.modRevision == revision { end += 1 }
            let group = Array(events[index..<end])
            shared.withLock { shared in
                guard revision > shared.space.revision else { return }
                apply(group, at: revision, to: &shared)
                applyOwnAhead(&shared)
            }
            index = end
        }
        deliver()
    }

    /// Applies this node's transaction, acknowledged by etcd at `revision`,
    /// as soon as the mirror stands at the revision before it.
    func applyOwn(_ operations: [EtcdOperation], at revision: Int64) {
        shared.withLock { shared in
            guard revision > shared.space.revision else { return }
            shared.ownAhead[revision] = operations
            applyOwnAhead(&shared)
        }
        deliver()
    }

    /// Nothing changed under the prefix up to `revision`.
    func advance(to revision: Int64) {
        shared.withLock { shared in
            guard revision > shared.space.revision else { return }
            shared.space.revision = revision
            shared.undelivered.append(Delivery(revision: revision, changeSet: nil, foreignEngineChange: false))
            applyOwnAhead(&shared)
        }
        deliver()
    }

    /// Applies the node's acknowledged transactions that are next in line.
    private func applyOwnAhead(_ shared: inout Shared) {
        shared.ownAhead = shared.ownAhead.filter { $0.key > shared.space.revision }
        while let operations = shared.ownAhead.removeValue(forKey: shared.space.revision + 1) {
            let revision = shared.space.revision + 1
            // Otherwise the watch brings the revision.
            guard let events = shared.space.events(of: operations, at: revision, layout: layout) else { return }
            apply(events, at: revision, to: &shared)
        }
    }

    /// Applies one whole revision under the lock and queues it for the observers.
    private func apply(_ events: [EtcdEvent], at revision: Int64, to shared: inout Shared) {
        var changes: [Change] = []
        var own: UInt64?
        var engineTables = false
        for event in events {
            let applied = shared.space.apply(event, layout: layout)
            if let change = applied.change { changes.append(change) }
            if case .row(let table, _)? = layout.place(of: event.keyValue.key), table != .property {
                engineTables = true
            }
            if let id = applied.transaction, let sequence = ownSequence(id) {
                own = sequence
                shared.ownTransactions[sequence] = revision
                // A writer looks its transaction up right after it
                // committed; old entries only matter to none.
                if shared.ownTransactions.count > 2 * ownTransactionLimit {
                    shared.ownTransactions = shared.ownTransactions.filter { $0.key + ownTransactionLimit > sequence }
                }
            }
        }
        let foreign = engineTables && own == nil
        if foreign { shared.foreignEngineChange = revision }
        shared.space.revision = revision
        shared.space.newestChange = revision
        let changeSet = ChangeSet(revision: Revision(revision), changes: changes)
        shared.recent.append(changeSet)
        if shared.recent.count > recentLimit {
            let dropped = shared.recent.count - recentLimit
            shared.recentAfter = shared.recent[dropped - 1].revision.rawValue
            shared.recent.removeFirst(dropped)
        }
        if shared.writerLog.revisions.count < writerLogLimit {
            shared.writerLog.revisions.append((revision, events, own))
        } else {
            shared.writerLog = WriterLog()
        }
        shared.undelivered.append(Delivery(revision: revision, changeSet: changeSet, foreignEngineChange: foreign))
    }

    /// Hands applied revisions to the observers in revision order, then
    /// resumes the writers waiting for them. Whichever thread finds the
    /// delivery idle does it; the others leave their revisions to it.
    private func deliver() {
        while true {
            let taken: (deliveries: [Delivery], observer: (@Sendable ([ChangeSet]) -> Void)?,
                foreign: (@Sendable () -> Void)?, scope: AnswerScope?)? = shared.withLock { shared in
                    guard !shared.delivering, !shared.undelivered.isEmpty else { return nil }
                    shared.delivering = true
                    defer { shared.undelivered = [] }
                    return (shared.undelivered, shared.observer, shared.foreignEngineObserver, shared.answerScope)
                }
            guard let taken else { return }
            let deliverTaken = {
                for delivery in taken.deliveries {
                    if let changeSet = delivery.changeSet { taken.observer?([changeSet]) }
                    if delivery.foreignEngineChange { taken.foreign?() }
                }
                let ready = self.shared.withLock { shared in
                    shared.delivering = false
                    shared.delivered = max(shared.delivered, taken.deliveries.last?.revision ?? 0)
                    let delivered = shared.delivered
                    let ready = shared.waiters.filter { $0.revision <= delivered }
                    shared.waiters.removeAll { $0.revision <= delivered }
                    return ready
                }
                for waiter in ready { waiter.action() }
            }
            answering(within: taken.scope, deliverTaken)
        }
    }

    /// Returns once every change up to `revision` is applied and reached the observers.
    func wait(for revision: Int64) async {
        await withCheckedContinuation { continuation in
            whenDelivered(revision) { continuation.resume() }
        }
    }

    /// Runs `action` once every change up to `revision` is applied and
    /// reached the observers: at once if it has, else on the thread that
    /// delivers the last of them.
    func whenDelivered(_ revision: Int64, _ action: @escaping @Sendable () -> Void) {
        let now = shared.withLock { shared in
            if shared.delivered >= revision { return true }
            shared.waiters.append((revision, action))
            return false
        }
        if now { action() }
    }

    /// The space now, for a writer that starts again from it (its log emptied).
    func restartWriter() -> SpaceState {
        shared.withLock { shared in
            shared.writerLog = WriterLog(revisions: [], restarted: false)
            return shared.space
        }
    }

    /// Takes the revisions applied since the writer last looked.
    func takeWriterLog() -> (log: WriterLog, space: SpaceState?) {
        shared.withLock { shared in
            let log = shared.writerLog
            shared.writerLog = WriterLog(revisions: [], restarted: false)
            // A new start's space already holds the revisions logged since.
            guard log.restarted else { return (log, nil) }
            return (WriterLog(revisions: [], restarted: true), shared.space)
        }
    }

    /// The revision of this node's transaction `sequence`, once the mirror saw it.
    func revision(ofTransaction sequence: UInt64) -> Int64? {
        shared.withLock { $0.ownTransactions[sequence] }
    }

    /// The transaction id of this node's `sequence`, as its marker carries it.
    func transactionID(_ sequence: UInt64) -> String { "\(node)-\(sequence)" }

    private func ownSequence(_ id: String) -> UInt64? {
        guard id.hasPrefix(node + "-") else { return nil }
        return UInt64(id.dropFirst(node.count + 1))
    }
}
