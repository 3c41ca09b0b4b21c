import PropdCore

/// The hub's locked state: who is subscribed to what, and the scratch space
/// of a publication (kept between publications so the fast path allocates
/// little).
struct Registry {
    private var index = PatternIndex<Int>()
    /// Subscribers by slot; a slot is reused after its subscriber leaves.
    private var slots: [SubscriberCore?] = []
    private var freeSlots: [Int] = []
    private var slotByID: [SubscriptionID: Int] = [:]
    /// Per slot: the change stamp at which it last matched, to deliver an
    /// event once to a subscriber whose patterns overlap.
    private var stamps: [UInt64] = []
    private var stamp: UInt64 = 0
    /// Per slot: the events of the publication in progress.
    private var outbox: [[EncodedEvent]] = []
    private var touched: [Int] = []
    private var matched: [Int] = []
    private(set) var count = 0
    private var closed = false
    private var lastPublished = Revision.none
    /// Subscribers ended with `SlowConsumer`: the revision each may resume
    /// from, and when it was ended.
    private var endedSlowConsumers: [(revision: Revision, at: ContinuousClock.Instant)] = []

    /// The oldest revision a live subscriber, or one ended with
    /// `SlowConsumer` less than `grace` ago, may still resume from with
    /// `since`: history after it must stay whole. `nil` when there is none.
    mutating func historyFloor(grace: Duration) -> Revision? {
        let now = ContinuousClock.now
        endedSlowConsumers.removeAll { now - $0.at > grace }
        var floor = endedSlowConsumers.map(\.revision).min()
        for case let core? in slots {
            guard let revision = core.resumesFrom else { continue }
            floor = min(floor ?? revision, revision)
        }
        return floor
    }

    mutating func register(_ core: SubscriberCore) -> Bool {
        guard !closed else { return false }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = core
        } else {
            slot = slots.count
            slots.append(core)
            stamps.append(0)
            outbox.append([])
        }
        slotByID[core.id] = slot
        for pattern in core.request.patterns { index.insert(pattern, slot) }
        count += 1
        return true
    }

    mutating func unregister(_ core: SubscriberCore) {
        guard let slot = slotByID.removeValue(forKey: core.id) else { return }
        for pattern in core.request.patterns { index.remove(pattern, slot) }
        slots[slot] = nil
        outbox[slot] = []
        freeSlots.append(slot)
        count -= 1
    }

    /// Ends every subscriber with `SlowConsumer` (coalescing ones too: a
    /// skipped revision may hold the latest value of one of their keys).
    mutating func endAllAsSlowConsumers(wakeups: inout [Wakeup]) {
        for case let core? in slots where core.endAsSlowConsumer(wakeups: &wakeups) != nil {
            leaveAsSlowConsumer(core)
        }
    }

    /// Forgets a subscriber ended with `SlowConsumer`, keeping the revision it
    /// may resume from in ``historyFloor(grace:)`` for a while.
    private mutating func leaveAsSlowConsumer(_ core: SubscriberCore) {
        if let revision = core.resumesFrom { endedSlowConsumers.append((revision, .now)) }
        unregister(core)
    }

    mutating func closeAll() -> [SubscriberCore] {
        closed = true
        let cores = slots.compactMap { $0 }
        for core in cores { unregister(core) }
        return cores
    }

    /// Queues each change for its subscribers. `encodeEagerly` when queues
    /// are bounded in bytes: the size must be known when an event is queued.
    mutating func publish<C: Collection<ChangeSet> & Sendable>(
        _ changeSets: C, encoder: @escaping EventEncoder, encodeEagerly: Bool, wakeups: inout [Wakeup]
    ) {
        for changeSet in changeSets {
            assert(changeSet.revision > lastPublished, "change sets must be published in rising revision order")
            lastPublished = changeSet.revision
        }
        guard count > 0 else { return }
        for changeSet in changeSets {
            for change in changeSet.changes {
                matched.removeAll(keepingCapacity: true)
                index.forEachMatch(change.key) { matched.append($0) }
                guard !matched.isEmpty else { continue }
                stamp &+= 1
                let event = EncodedEvent(change.event(at: changeSet.revision), encoder: encoder, eagerly: encodeEagerly)
                for slot in matched where stamps[slot] != stamp {
                    stamps[slot] = stamp
                    if outbox[slot].isEmpty { touched.append(slot) }
                    outbox[slot].append(event)
                }
            }
        }
        for slot in touched {
            guard let core = slots[slot] else { continue }
            let result = core.enqueue(outbox[slot], wakeups: &wakeups)
            if outbox[slot].count > 64 {
                outbox[slot] = []
            } else {
                outbox[slot].removeAll(keepingCapacity: true)
            }
            switch result {
            case .accepted: break
            case .overflowed: leaveAsSlowConsumer(core)
            case .ended: unregister(core)
            }
        }
        touched.removeAll(keepingCapacity: true)
    }
}
