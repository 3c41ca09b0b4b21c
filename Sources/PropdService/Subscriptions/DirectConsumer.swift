/// A consumer that takes a subscription's live event as it is published,
/// on the publishing thread, when it can send it without a queue of its
/// own: a connection whose event loop is the one committing and publishing
/// (a tick's commit), its socket writable. The event then skips the
/// subscriber's queue, its wake-up, the hop to the loop and the pull back
/// out, which together cost more than the `send(2)` itself.
///
/// Only a publication's single event for a subscriber with nothing
/// pending is handed over: anything queued goes first, through
/// ``Subscription/next(limit:into:)``, so the order stays that of the
/// revisions.
public protocol DirectConsumer: AnyObject, Sendable {
    /// Whether an event published now may be handed over: called by the
    /// hub under its locks, so a read of what the consumer knows, never a
    /// call back into the hub.
    var takesEventsNow: Bool { get }

    /// Takes an event handed over by a publication, on the publishing
    /// thread, once every lock of the hub is released. It counts as sent:
    /// the consumer sends it, when it chooses, before anything it takes
    /// from the subscription later.
    func take(_ event: EncodedEvent)
}

/// An event handed over to a ``DirectConsumer``, collected under the hub's
/// locks and taken once they are released.
struct Handover: Sendable {
    let consumer: any DirectConsumer
    let event: EncodedEvent
}
