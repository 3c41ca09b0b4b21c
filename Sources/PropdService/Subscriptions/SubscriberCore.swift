import PropdCore
import Synchronization

/// What a consumer gets when it asks a subscription for events.
public enum SubscriptionPoll: Sendable {
    /// The next events, in order (never empty). Events of one revision are
    /// contiguous, though a batch may end in the middle of a revision.
    case events([EncodedEvent])
    /// Nothing now: the readiness handler (or an awaiting iterator) is woken
    /// as soon as there is.
    case pending
    /// The subscription is over; nothing follows.
    case ended(SubscriptionEnd)
}

/// What a consumer gets when it asks a subscription for events into an
/// array of its own (``Subscription/next(limit:into:)``).
public enum SubscriptionFill: Sendable {
    /// The array holds the next events, in order (never empty); more are
    /// pending.
    case filled
    /// The array holds every pending event, in order (never empty), and
    /// the readiness handler is armed as after ``pending``: the consumer
    /// waits for it rather than asking again only to be told `.pending`.
    case filledAll
    /// Nothing now, as ``SubscriptionPoll/pending``; the array is empty.
    case pending
    /// The subscription is over, as ``SubscriptionPoll/ended(_:)``; the array is empty.
    case ended(SubscriptionEnd)
}

/// A wake-up a consumer is owed, collected under a lock and fired after
/// it is released.
struct Wakeup: Sendable {
    var handler: (@Sendable () -> Void)?
    var waiter: CheckedContinuation<Void, Never>?

    static let none = Wakeup()

    func fire() {
        waiter?.resume()
        handler?()
    }
}

/// The state of one subscriber, shared by the hub (which appends) and the
/// consumer (which takes). One lock; the hub takes it while holding its own,
/// never the other way round.
final class SubscriberCore: Sendable {
    enum Phase {
        /// Registered, backlog not read yet: live events are kept, nothing is handed out.
        case loading
        case streaming
        case ended(SubscriptionEnd)
    }

    struct State {
        var phase: Phase = .loading
        var backlog: [EncodedEvent] = []
        var backlogCursor = 0
        var live: PendingEvents
        /// The backlog's revision R once installed: live events at or below it
        /// are already in the backlog (a commit can be read by the backlog
        /// before the writer gets to publish it).
        var backlogRevision: Revision?
        /// The last revision whose events were all handed to the consumer.
        var lastFullySent: Revision
        /// The consumer saw `.pending` and must be told when that changes.
        var wantsWakeup = false
        var readiness: (@Sendable () -> Void)?
        var waiter: CheckedContinuation<Void, Never>?
        var direct: (any DirectConsumer)?

        var hasEvents: Bool { backlogCursor < backlog.count || !live.isEmpty }

        /// Ends the subscription: drops what is pending and returns the last
        /// wake-up. The handler is forgotten (it often holds the connection
        /// that holds this subscription); the returned wake-up keeps it alive
        /// until it is fired outside every lock, since its release may re-enter the hub.
        mutating func finish(_ reason: SubscriptionEnd) -> Wakeup {
            phase = .ended(reason)
            live.removeAll()
            backlog = []
            backlogCursor = 0
            wantsWakeup = true
            let wake = takeWakeup()
            readiness = nil
            direct = nil
            return wake
        }

        mutating func takeWakeup() -> Wakeup {
            var wake = Wakeup(waiter: waiter)
            waiter = nil
            if wantsWakeup {
                wantsWakeup = false
                wake.handler = readiness
            }
            return wake
        }
    }

    let id: SubscriptionID
    let request: SubscriptionRequest
    let maximumPendingEvents: Int
    let maximumPendingBytes: Int?
    private let state: Mutex<State>

    init(id: SubscriptionID, request: SubscriptionRequest, maximumPendingEvents: Int, maximumPendingBytes: Int? = nil) {
        self.id = id
        self.request = request
        self.maximumPendingEvents = maximumPendingEvents
        // Coalescing subscribers are never ended, so their bytes need no counting.
        self.maximumPendingBytes = request.coalesce ? nil : maximumPendingBytes
        var floor = Revision.none
        if case .since(let since) = request.backlog { floor = since }
        state = Mutex(State(live: PendingEvents(coalescing: request.coalesce, countingBytes: !request.coalesce && maximumPendingBytes != nil), lastFullySent: floor))
    }

    enum EnqueueResult {
        case accepted
        /// The bound was exceeded: the subscriber is ended and must leave the hub.
        case overflowed
        /// Already ended; the hub should forget it.
        case ended
    }

    /// Appends live events (whole revisions, in order) and adds the wake-up
    /// owed to the consumer, if any, to `wakeups`, or, when the consumer
    /// takes a single event now, hands it over in `handovers` instead.
    /// Called by the hub under its lock.
    func enqueue<Events: RandomAccessCollection<EncodedEvent>>(
        _ events: Events, wakeups: inout [Wakeup], handovers: inout [Handover]
    ) -> EnqueueResult where Events.Index == Int {
        state.withLock { s in
            switch s.phase {
            case .ended: return .ended
            case .loading, .streaming: break
            }
            var start = events.startIndex
            if let floor = s.backlogRevision {
                while start < events.endIndex, events[start].event.revision <= floor { start += 1 }
                if start == events.endIndex { return .accepted }
            }
            // One revision, however many events it has (a Set of 10,001 keys,
            // a large fan-out), never ends a consumer that has taken all it
            // was given: the bound is on what it leaves unsent.
            var overflows = false
            if !request.coalesce, !s.live.isEmpty {
                overflows = s.live.count + (events.endIndex - start) > maximumPendingEvents
                if !overflows, let maximumPendingBytes {
                    var bytes = s.live.bytes
                    for i in start..<events.endIndex { bytes += events[i].size }
                    overflows = bytes > maximumPendingBytes
                }
            }
            if overflows {
                wakeups.append(s.finish(.slowConsumer(revision: s.resumeRevision())))
                return .overflowed
            }
            if start == events.endIndex - 1, case .streaming = s.phase, !s.hasEvents, s.waiter == nil,
                let direct = s.direct, direct.takesEventsNow
            {
                let event = events[start]
                s.advanceLastFullySent(through: event.event.kind, at: event.event.revision)
                handovers.append(Handover(consumer: direct, event: event))
                return .accepted
            }
            for i in start..<events.endIndex { s.live.append(events[i]) }
            if case .streaming = s.phase, s.wantsWakeup || s.waiter != nil {
                wakeups.append(s.takeWakeup())
            }
            return .accepted
        }
    }

    /// Installs the backlog (ending with `synced` at `revision`) and drops the
    /// live events it already covers, then lets the consumer in.
    func install(backlog: [EncodedEvent], through revision: Revision) {
        let wake: Wakeup = state.withLock { s in
            guard case .loading = s.phase else { return .none }
            s.live.removeAll(through: revision)
            s.backlogRevision = revision
            s.backlog = backlog
            s.backlogCursor = 0
            s.phase = .streaming
            return s.takeWakeup()
        }
        wake.fire()
    }

    /// Ends the subscription; pending events are dropped. A second end is ignored.
    @discardableResult
    func end(_ reason: SubscriptionEnd) -> Bool {
        let (ended, wake): (Bool, Wakeup) = state.withLock { s in
            if case .ended = s.phase { return (false, .none) }
            return (true, s.finish(reason))
        }
        wake.fire()
        return ended
    }

    /// Ends the subscription with `SlowConsumer` at the last revision it was
    /// fully sent, as an overflow does, whatever it has pending: the hub can
    /// no longer give it every event. Returns that revision, or nil when it
    /// had already ended.
    func endAsSlowConsumer(wakeups: inout [Wakeup]) -> Revision? {
        state.withLock { s in
            if case .ended = s.phase { return nil }
            let revision = s.resumeRevision()
            wakeups.append(s.finish(.slowConsumer(revision: revision)))
            return revision
        }
    }

    /// Takes up to `limit` events.
    func next(limit: Int) -> SubscriptionPoll {
        var batch: [EncodedEvent] = []
        switch next(limit: limit, into: &batch, armingWhenDrained: false) {
        case .filled, .filledAll: return .events(batch)
        case .pending: return .pending
        case .ended(let reason): return .ended(reason)
        }
    }

    /// Takes up to `limit` events into `batch`, emptied first, its storage
    /// kept. When that takes every pending event and `armingWhenDrained`,
    /// the wake-up is armed at once (``SubscriptionFill/filledAll``).
    func next(limit: Int, into batch: inout [EncodedEvent], armingWhenDrained: Bool = true) -> SubscriptionFill {
        batch.removeAll(keepingCapacity: true)
        return state.withLock { s in
            switch s.phase {
            case .ended(let reason): return .ended(reason)
            case .loading:
                s.wantsWakeup = true
                return .pending
            case .streaming: break
            }
            guard s.hasEvents else {
                s.wantsWakeup = true
                return .pending
            }
            batch.reserveCapacity(min(limit, s.backlog.count - s.backlogCursor + s.live.count))
            while batch.count < limit, s.backlogCursor < s.backlog.count {
                batch.append(s.backlog[s.backlogCursor])
                s.backlogCursor += 1
            }
            if s.backlogCursor == s.backlog.count, !s.backlog.isEmpty {
                s.backlog = []
                s.backlogCursor = 0
            }
            while batch.count < limit, let event = s.live.popFirst() {
                batch.append(event)
            }
            s.advanceLastFullySent(after: batch)
            if s.hasEvents || !armingWhenDrained { return .filled }
            s.wantsWakeup = true
            return .filledAll
        }
    }

    /// Sets (or, with nil, removes) the consumer that takes events as they
    /// are published when it can (``DirectConsumer``).
    func setDirectConsumer(_ consumer: (any DirectConsumer)?) {
        let previous = state.withLock { s in
            if case .ended = s.phase { return consumer }
            defer { s.direct = consumer }
            return s.direct
        }
        // Released outside the lock, as a readiness handler is.
        _ = previous
    }

    func setReadinessHandler(_ handler: (@Sendable () -> Void)?) {
        let previous = state.withLock { s in
            defer { s.readiness = handler }
            return s.readiness
        }
        // Released here, outside the lock: a handler may hold the last reference
        // to its subscription, whose release re-enters the hub.
        _ = previous
    }

    /// Suspends until events are available or the subscription ends (or the
    /// waiting task is cancelled).
    func waitUntilReady() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: CheckedContinuation<Void, Never>? = state.withLock { s in
                    let ready: Bool
                    switch s.phase {
                    case .ended: ready = true
                    case .loading: ready = false
                    case .streaming: ready = s.hasEvents
                    }
                    if ready || Task.isCancelled { return continuation }
                    // One consumer at a time: a previous waiter is released.
                    let previous = s.waiter
                    s.waiter = continuation
                    return previous
                }
                resumeNow?.resume()
            }
        } onCancel: {
            let waiter = state.withLock { s in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
    }

    /// The revision this subscriber would resume from if it were ended now
    /// (or was ended with `SlowConsumer`); nil for a coalescing one, which is never ended.
    var resumesFrom: Revision? {
        if request.coalesce { return nil }
        return state.withLock { s in
            switch s.phase {
            case .ended(.slowConsumer(let revision)): return revision
            case .ended: return nil
            case .loading: return s.lastFullySent
            case .streaming:
                // Nothing pending: it has every event published so far.
                if !s.hasEvents { return nil }
                return s.resumeRevision()
            }
        }
    }

    /// Pending live events (for statistics and tests).
    var pendingCount: Int { state.withLock { $0.live.count + ($0.backlog.count - $0.backlogCursor) } }
}

extension SubscriberCore.State {
    /// The last revision whose events were all handed out: the one before
    /// the first pending live event when the backlog is all taken (every
    /// earlier revision had nothing more for this subscriber).
    mutating func resumeRevision() -> Revision {
        guard backlogCursor >= backlog.count, backlogRevision != nil, let first = live.first() else {
            return lastFullySent
        }
        return max(lastFullySent, Revision(first.event.revision.rawValue - 1))
    }

    /// After handing out `batch`: every revision below the last one handed out
    /// is complete (events come in revision order); the last one is complete
    /// unless its next event is still pending. `initial` and `replay` events do
    /// not count (a client cannot resume from them); `synced` at R means R is complete.
    mutating func advanceLastFullySent(after batch: [EncodedEvent]) {
        guard let last = batch.last else { return }
        advanceLastFullySent(through: last.event.kind, at: last.event.revision)
    }

    /// After handing out events up to the last one, of `kind` at
    /// `revision`, as ``advanceLastFullySent(after:)`` (the two fields
    /// rather than the event: a copy of it would retain its key and value).
    mutating func advanceLastFullySent(through kind: Event.Kind, at revision: Revision) {
        switch kind {
        case .initial, .replay: return
        case .synced:
            lastFullySent = max(lastFullySent, revision)
        case .set, .delete, .error:
            let nextEvent = backlogCursor < backlog.count ? backlog[backlogCursor] : live.first()
            if let nextEvent, nextEvent.event.kind != .synced, nextEvent.event.revision == revision {
                lastFullySent = max(lastFullySent, Revision(revision.rawValue - 1))
            } else {
                lastFullySent = max(lastFullySent, revision)
            }
        }
    }
}
