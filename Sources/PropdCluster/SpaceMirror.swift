import PropdCore
import PropdEtcd
import Synchronization

/// One node's copy of the property space, fed by one etcd watch of the
/// prefix from the revision it was read at.
///
/// Every revision that touches the prefix is applied whole, in order; after
/// each, the commit observer gets its ``ChangeSet`` and then the writers
/// waiting for that revision resume — so a node's subscribers see every
/// node's writes in revision order, and a request is answered only once its
/// node can read it back.
final class SpaceMirror: Sendable {
    /// What the lock guards besides the space itself.
    struct Shared: Sendable {
        var space = SpaceState()
        /// Recent change sets, oldest first: `changes(after:)` from memory.
        var recent: [ChangeSet] = []
        /// Changes after this revision are all in `recent`.
        var recentAfter: Int64 = 0
        /// This node's transaction ids seen in `head`, with their revision.
        var ownTransactions: [UInt64: Int64] = [:]
        var waiters: [(revision: Int64, continuation: CheckedContinuation<Void, Never>)] = []
        var observer: (@Sendable ([ChangeSet]) -> Void)?
        /// The last revision at which another node changed what a binding
        /// engine is built from (bindings, their state, expiries, commands).
        var foreignEngineChange: Int64 = 0
        /// Told of each such revision, once the mirror has it.
        var foreignEngineObserver: (@Sendable () -> Void)?
        /// Told when the space was read again after etcd compacted past the
        /// watch: `observer` never gets the revisions in between.
        var skipObserver: (@Sendable (Revision) -> Void)?
    }

    let layout: SpaceLayout
    /// Identifies this node's transactions in `head` (`NODE-SEQUENCE`).
    let node: String
    /// How many change sets `recent` keeps.
    let recentLimit: Int
    let shared = Mutex(Shared())
    private let ownTransactionLimit: UInt64 = 4096

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
        }
        space.revision = read.revision
        shared.withLock { shared in
            shared.space = space
            shared.recent = []
            shared.recentAfter = read.revision
        }
        resumeWaiters()
    }

    /// Follows the prefix from the loaded revision until cancelled; throws
    /// etcd's `compacted` when it fell behind etcd's compaction.
    func follow(_ etcd: EtcdClient) async throws -> Never {
        let start = shared.withLock { $0.space.revision } + 1
        try await etcd.watch(layout.everything, from: start, progressNotify: true) { [self] update in
            switch update {
            case .events(let events): apply(events)
            case .progress(let revision): advance(to: revision)
            }
        }
    }

    /// Applies the events of one or more whole revisions.
    func apply(_ events: [EtcdEvent]) {
        var index = events.startIndex
        while index < events.endIndex {
            let revision = events[index].keyValue.modRevision
            var end = index
            while end < events.endIndex, events[end].keyValue.modRevision == revision { end += 1 }
            let (changeSet, foreign) = shared.withLock { shared in
                var changes: [Change] = []
                var own = false
                var engineTables = false
                for event in events[index..<end] {
                    let applied = shared.space.apply(event, layout: layout)
                    if let change = applied.change { changes.append(change) }
                    if case .row(let table, _)? = layout.place(of: event.keyValue.key), table != .property {
                        engineTables = true
                    }
                    if let id = applied.transaction, let sequence = ownSequence(id) {
                        own = true
                        shared.ownTransactions[sequence] = revision
                        // A writer looks its transaction up right after it
                        // committed; old entries only matter to none.
                        if shared.ownTransactions.count > 2 * ownTransactionLimit {
                            shared.ownTransactions = shared.ownTransactions.filter { $0.key + ownTransactionLimit > sequence }
                        }
                    }
                }
                if engineTables && !own { shared.foreignEngineChange = revision }
                shared.space.revision = revision
                let changeSet = ChangeSet(revision: Revision(revision), changes: changes)
                shared.recent.append(changeSet)
                if shared.recent.count > recentLimit {
                    let dropped = shared.recent.count - recentLimit
                    shared.recentAfter = shared.recent[dropped - 1].revision.rawValue
                    shared.recent.removeFirst(dropped)
                }
                return (changeSet, engineTables && !own)
            }
            let observers = shared.withLock { ($0.observer, $0.foreignEngineObserver) }
            observers.0?([changeSet])
            if foreign { observers.1?() }
            resumeWaiters()
            index = end
        }
    }

    /// Nothing changed under the prefix up to `revision`.
    func advance(to revision: Int64) {
        shared.withLock { $0.space.revision = max($0.space.revision, revision) }
        resumeWaiters()
    }

    private func resumeWaiters() {
        let ready = shared.withLock { shared in
            let revision = shared.space.revision
            let ready = shared.waiters.filter { $0.revision <= revision }
            shared.waiters.removeAll { $0.revision <= revision }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once every change up to `revision` is applied.
    func wait(for revision: Int64) async {
        await withCheckedContinuation { continuation in
            let now = shared.withLock { shared in
                if shared.space.revision >= revision { return true }
                shared.waiters.append((revision, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The revision of this node's transaction `sequence`, once the mirror saw it.
    func revision(ofTransaction sequence: UInt64) -> Int64? {
        shared.withLock { $0.ownTransactions[sequence] }
    }

    /// The transaction id `head` gets for this node's `sequence`.
    func transactionID(_ sequence: UInt64) -> String { "\(node)-\(sequence)" }

    private func ownSequence(_ id: String) -> UInt64? {
        guard id.hasPrefix(node + "-") else { return nil }
        return UInt64(id.dropFirst(node.count + 1))
    }
}
