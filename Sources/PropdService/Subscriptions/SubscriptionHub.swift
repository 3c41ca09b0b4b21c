public import PropdCore
public import PropdWire
import Synchronization

/// Fans committed change sets out to subscribers.
///
/// The writer publishes each commit's change sets, in revision order, after
/// they are durable and visible to readers; connections subscribe and consume.
///
/// ```swift
/// let hub = SubscriptionHub(encoder: varlinkReplyFrame)
/// // the writer, after each group commit:
/// hub.publish(changeSets)
/// // a connection:
/// let request = try SubscriptionRequest(patterns: [try KeyPattern("room.*")])
/// let subscription = try await hub.subscribe(request, backlog: store)
/// for try await event in subscription.events { write(event.bytes) }
/// ```
///
/// Publishing never waits for a consumer: each subscriber has a bounded queue,
/// and one that overflows it (without `coalesce`) is ended with
/// ``SubscriptionEnd/slowConsumer(revision:)``. Matching goes through a
/// ``PatternIndex``; each event is encoded at most once and its bytes are
/// shared by all its subscribers (see ``EncodedEvent``).
public final class SubscriptionHub: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Live events a subscriber may have waiting before it is ended with
        /// `SlowConsumer` (coalescing subscribers are never ended: they hold
        /// at most one pending event per key).
        public var maximumPendingEvents: Int
        /// Encoded bytes a subscriber may have waiting before it is ended with
        /// `SlowConsumer`; `nil` for no byte bound. With a byte bound, an
        /// event is encoded when it is queued (on the publishing thread)
        /// rather than when it is first taken, since its size must be known.
        public var maximumPendingBytes: Int?

        public init(maximumPendingEvents: Int = 10_000, maximumPendingBytes: Int? = 16 << 20) {
            self.maximumPendingEvents = maximumPendingEvents
            self.maximumPendingBytes = maximumPendingBytes
        }
    }

    public let configuration: Configuration
    let encoder: EventEncoder
    private let encodeEagerly: Bool
    private let registry = Mutex(Registry())
    private let nextID = Atomic<UInt64>(1)

    public init(configuration: Configuration = Configuration(), encoder: @escaping EventEncoder = EventEncoding.jsonObject) {
        self.configuration = configuration
        self.encoder = encoder
        encodeEagerly = configuration.maximumPendingBytes != nil
    }

    /// Number of live subscriptions (`Stats.subscriptions`).
    public var subscriptionCount: Int { registry.withLock { $0.count } }

    /// Starts a subscription: registers it first (so nothing committed from
    /// now on is missed), then reads the backlog from `source`, then queues
    /// the backlog, one `synced` event at the backlog's revision R, and the
    /// live events above R that arrived meanwhile (none is lost or doubled).
    ///
    /// - Throws: what `source` throws (``SubscriptionError/revisionCompacted(since:oldest:)``),
    ///   ``SubscriptionError/sinceAhead(since:current:)``, ``SubscriptionError/hubClosed``.
    public func subscribe(_ request: SubscriptionRequest, backlog source: any BacklogSource) async throws -> Subscription {
        let id = SubscriptionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
        let core = SubscriberCore(
            id: id, request: request, maximumPendingEvents: max(1, configuration.maximumPendingEvents),
            maximumPendingBytes: configuration.maximumPendingBytes.map { max(1, $0) })
        let registered = registry.withLock { $0.register(core) }
        guard registered else { throw SubscriptionError.hubClosed }
        let subscription = Subscription(core: core, hub: self)
        // From here on, failing releases `subscription`, whose deinit unregisters.
        let backlog = try await Backlog.read(for: request, from: source)
        let events = backlog.events.map { EncodedEvent($0, encoder: encoder) }
        core.install(backlog: events + [EncodedEvent(.synced(at: backlog.revision), encoder: encoder)], through: backlog.revision)
        return subscription
    }

    /// Delivers committed change sets, which must come in rising revision
    /// order, to every subscriber with a matching pattern. Returns at once:
    /// it only appends to queues and wakes consumers (readiness handlers run
    /// on this thread, after the hub's locks are released).
    ///
    /// Call it once the commit is visible to backlog reads: a subscription
    /// whose backlog already holds a revision drops that revision's live
    /// events, so publishing late never duplicates, but publishing before
    /// readers can see the commit could let a subscription miss it.
    public func publish(_ changeSets: [ChangeSet]) {
        deliver(changeSets)
    }

    /// Delivers one committed change set.
    public func publish(_ changeSet: ChangeSet) {
        deliver(CollectionOfOne(changeSet))
    }

    private func deliver<C: Collection<ChangeSet> & Sendable>(_ changeSets: C) {
        var wakeups: [Wakeup] = []
        var handovers: [Handover] = []
        registry.withLock { r in
            r.publish(changeSets, encoder: encoder, encodeEagerly: encodeEagerly, wakeups: &wakeups, handovers: &handovers)
        }
        // Outside the lock: a handler may call back into the hub. In place:
        // a copy of each would retain what it holds once more.
        for index in wakeups.indices { wakeups[index].fire() }
        // Moved out from the back, for the same reason: a publication's
        // subscribers, each handed at most one event, get theirs last
        // matched first.
        while let handover = handovers.popLast() { handover.consumer.take(handover.event) }
    }

    /// Ends every live subscription with ``SubscriptionEnd/slowConsumer(revision:)``
    /// at the last revision each was fully sent: the store skipped revisions
    /// it will never publish (a cluster node whose watch fell behind etcd's
    /// compaction), so no subscriber can be given every event. Each may
    /// resume with `since`, and learns from history what is gone
    /// (`RevisionCompacted`). New subscriptions are taken as before.
    public func endAllAsSlowConsumers() {
        var wakeups: [Wakeup] = []
        registry.withLock { $0.endAllAsSlowConsumers(wakeups: &wakeups) }
        // Outside the lock: a handler may call back into the hub. Fired
        // in place: a copy of each would retain what it holds once more.
        for index in wakeups.indices { wakeups[index].fire() }
    }

    /// Ends every subscription (``SubscriptionEnd/hubClosed``) and refuses new ones.
    public func close() {
        let cores = registry.withLock { $0.closeAll() }
        for core in cores { core.end(.hubClosed) }
    }

    /// How long history stays whole after the revision a subscriber ended
    /// with `SlowConsumer` may resume from: time for it to reconnect.
    public static let slowConsumerGrace: Duration = .seconds(600)

    /// The revision after which history must stay whole so that every live
    /// subscriber, and every one ended with `SlowConsumer` in the last
    /// ``slowConsumerGrace``, can resume with `since` and lose nothing.
    public func historyFloor() -> Revision? {
        registry.withLock { $0.historyFloor(grace: Self.slowConsumerGrace) }
    }

    func remove(_ core: SubscriberCore, reason: SubscriptionEnd) {
        registry.withLock { $0.unregister(core) }
        core.end(reason)
    }
}
