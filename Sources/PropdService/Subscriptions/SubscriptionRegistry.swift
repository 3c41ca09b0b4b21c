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
        _ changeSets: C, encoder: @escaping EventEncoder, encodeEagerly: Bool,
        wakeups: inout [Wakeup], handovers: inout [Handover]
    ) {
        for changeSet in changeSets {
            assert(changeSet.revision > lastPublished, "change sets must be published in rising revision order")
            lastPublished = changeSet.revision
        }
        guard count > 0 else { return }
        if changeSets.count == 1, let changeSet = changeSets.first, changeSet.changes.count == 1 {
            return publish(
                changeSet.changes[0], at: changeSet.revision, encoder: encoder, encodeEagerly: encodeEagerly,
                wakeups: &wakeups, handovers: &handovers)
        }
        for changeSet in changeSets {
            for change in changeSet.changes {
                guard matchSubscribers(of: change.key) else { continue }
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
            let result = core.enqueue(outbox[slot], wakeups: &wakeups, handovers: &handovers)
            if outbox[slot].count > 64 {
                outbox[slot] = []
            } else {
                outbox[slot].removeAll(keepingCapacity: true)
            }
            settle(core, result)
        }
        touched.removeAll(keepingCapacity: true)
    }

    /// A publication of one change, the commonest (a Set of one key): each
    /// subscriber is handed its event as it is matched, without gathering
    /// it in the subscriber's outbox first.
    private mutating func publish(
        _ change: Change, at revision: Revision, encoder: @escaping EventEncoder, encodeEagerly: Bool,
        wakeups: inout [Wakeup], handovers: inout [Handover]
    ) {
        guard matchSubscribers(of: change.key) else { return }
        let event = EncodedEvent(change.event(at: revision), encoder: encoder, eagerly: encodeEagerly)
        handovers.reserveCapacity(matched.count)
        for slot in matched where stamps[slot] != stamp {
            stamps[slot] = stamp
            guard let core = slots[slot] else { continue }
            // The event lent as a collection of one, not copied into one.
            let result = withUnsafePointer(to: event) { event in
                core.enqueue(UnsafeBufferPointer(start: event, count: 1), wakeups: &wakeups, handovers: &handovers)
            }
            settle(core, result)
        }
    }

    /// Fills `matched` with the slots whose patterns match `key` (a slot
    /// twice when two of its patterns do) and starts a new stamp for them;
    /// false when none matches.
    private mutating func matchSubscribers(of key: Key) -> Bool {
        matched.removeAll(keepingCapacity: true)
        index.forEachMatch(key) { matched.append($0) }
        guard !matched.isEmpty else { return false }
        stamp &+= 1
        return true
    }

    /// Acts on what a subscriber's queue said of the events it was given.
    private mutating func settle(_ core: SubscriberCore, _ result: SubscriberCore.EnqueueResult) {
        switch result {
        case .accepted: break
        case .overflowed: leaveAsSlowConsumer(core)
        case .ended: unregister(core)
        }
    }
}
