import PropdCore

/// Identifies a subscription within its hub.
public struct SubscriptionID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue)" }
}

/// A live subscription: the consumer's handle (RAC's disposable).
///
/// Events are pulled, so the transport writes when it can and flushes per
/// batch: call ``next(limit:)`` until it answers `.pending`, then wait for the
/// readiness handler before asking again.
///
/// ```swift
/// let subscription = try await hub.subscribe(request, backlog: store)
/// subscription.onReady { channel.eventLoop.execute { writeAvailable() } }
/// func writeAvailable() {
///     while case .events(let batch) = subscription.next(limit: 256) {
///         for event in batch { buffer.writeBytes(event.bytes) }
///         channel.writeAndFlush(buffer)   // a real transport also waits for writability
///     }
/// }
/// ```
/// Or iterate ``events`` from a task. Releasing the handle or calling
/// ``cancel()`` ends the subscription and frees its queue.
public final class Subscription: Sendable {
    public var id: SubscriptionID { core.id }
    public var request: SubscriptionRequest { core.request }

    let core: SubscriberCore
    private let hub: SubscriptionHub

    init(core: SubscriberCore, hub: SubscriptionHub) {
        self.core = core
        self.hub = hub
    }

    deinit { hub.remove(core, reason: .cancelled) }

    /// Takes up to `limit` pending events, in order: the backlog, one `synced`
    /// event, then live events. `.pending` arms the readiness handler;
    /// `.ended` is final (``SubscriptionEnd/slowConsumer(revision:)`` is the
    /// contract's `SlowConsumer`).
    public func next(limit: Int = 256) -> SubscriptionPoll {
        core.next(limit: max(1, limit))
    }

    /// Takes up to `limit` pending events, as ``next(limit:)``, into `batch`,
    /// which is emptied first and keeps its storage: a consumer that keeps
    /// one array from call to call allocates none. When that takes every
    /// pending event it answers `.filledAll` and arms the readiness handler,
    /// so the consumer need not ask again to be told `.pending`.
    public func next(limit: Int, into batch: inout [EncodedEvent]) -> SubscriptionFill {
        core.next(limit: max(1, limit), into: &batch)
    }

    /// Sets the handler called when events become available (or the
    /// subscription ends) after ``next(limit:)`` answered `.pending`, or
    /// ``next(limit:into:)`` `.pending` or `.filledAll`. It is called once
    /// per such answer, on the publishing thread, outside every lock: keep
    /// it short (hop to the connection's event loop). After setting it,
    /// take events until one of those answers.
    public func onReady(_ handler: @escaping @Sendable () -> Void) {
        core.setReadinessHandler(handler)
    }

    /// Sets the consumer that takes each live event as it is published,
    /// when it says it can and nothing is pending (``DirectConsumer``); nil
    /// removes it. The subscription holds it until then or until it ends.
    public func setDirectConsumer(_ consumer: (any DirectConsumer)?) {
        core.setDirectConsumer(consumer)
    }

    /// Ends the subscription now; pending events are dropped and the hub
    /// forgets it. Idempotent.
    public func cancel() {
        hub.remove(core, reason: .cancelled)
    }

    /// The events as an asynchronous sequence; it finishes when the
    /// subscription is cancelled or the hub closes, and throws ``SlowConsumer``
    /// when the consumer fell too far behind.
    public var events: SubscriptionEvents { SubscriptionEvents(subscription: self) }

    /// Events waiting to be taken (for tests and statistics).
    public var pendingCount: Int { core.pendingCount }
}

/// A subscription's events, one at a time.
///
/// Cancelling the iterating task ends the iteration (the subscription itself
/// lives until it is cancelled or released).
public struct SubscriptionEvents: AsyncSequence, Sendable {
    public typealias Element = EncodedEvent
    let subscription: Subscription

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: subscription) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: Subscription
        private var batch: [EncodedEvent] = []
        private var index = 0
        private var finished = false

        init(subscription: Subscription) { self.subscription = subscription }

        public mutating func next() async throws -> EncodedEvent? {
            while !finished {
                if index < batch.count {
                    defer { index += 1 }
                    return batch[index]
                }
                switch subscription.next(limit: 256) {
                case .events(let events):
                    batch = events
                    index = 0
                case .pending:
                    if Task.isCancelled {
                        finished = true
                        return nil
                    }
                    await subscription.core.waitUntilReady()
                case .ended(let reason):
                    finished = true
                    batch = []
                    if case .slowConsumer(let revision) = reason { throw SlowConsumer(revision: revision) }
                }
            }
            return nil
        }
    }
}
