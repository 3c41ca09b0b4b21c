import PropdCore
import Synchronization
import Testing

@testable import PropdService

/// Events handed straight to a consumer that can take them as they are
/// published (`DirectConsumer`), and queued whenever that could reorder them.
@Suite struct DirectConsumerTests {
    /// Records what it is handed; says it can take events while `open`.
    final class Consumer: DirectConsumer {
        let open = Atomic(true)
        let taken = Mutex<[Event]>([])

        var takesEventsNow: Bool { open.load(ordering: .relaxed) }

        func take(_ event: EncodedEvent) {
            taken.withLock { $0.append(event.event) }
        }

        var events: [Event] { taken.withLock { $0 } }
    }

    /// A subscription to `a.*` whose backlog (its `synced` event) is taken,
    /// with `consumer` set.
    static func streaming(_ store: FakeStore, _ consumer: Consumer) async throws -> Subscription {
        let subscription = try await store.hub.subscribe(
            try SubscriptionRequest(patterns: [pattern("a.*")], initial: false), backlog: store)
        var batch: [EncodedEvent] = []
        guard case .filledAll = subscription.next(limit: 8, into: &batch), batch.map(\.event) == [.synced(at: 0)] else {
            Issue.record("the backlog's synced event was not taken alone")
            return subscription
        }
        subscription.setDirectConsumer(consumer)
        return subscription
    }

    /// Everything pending, in order.
    static func pending(_ subscription: Subscription) -> [Event] {
        var batch: [EncodedEvent] = []
        switch subscription.next(limit: 64, into: &batch) {
        case .filled, .filledAll: return batch.map(\.event)
        case .pending, .ended: return []
        }
    }

    @Test func aSubscribersOneEventOfARevisionIsHandedOverWhenNothingIsPending() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let consumer = Consumer()
        let subscription = try await Self.streaming(store, consumer)
        let woken = Flag()
        subscription.onReady { woken.set() }
        store.write([("a.x", 1), ("b.y", 1)])
        #expect(consumer.events == [Event(key: "a.x", kind: .set, value: 1, revision: 1)])
        #expect(subscription.pendingCount == 0)
        // Handed over, it is owed no wake-up: nothing is queued.
        #expect(!woken.isSet)
    }

    @Test func aLoneChangeMatchingTwoOfTheSubscribersPatternsIsHandedOverOnce() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let consumer = Consumer()
        let subscription = try await store.hub.subscribe(
            try SubscriptionRequest(patterns: [pattern("a.*"), pattern("a.x")], initial: false), backlog: store)
        var batch: [EncodedEvent] = []
        guard case .filledAll = subscription.next(limit: 8, into: &batch) else {
            Issue.record("the backlog's synced event was not taken whole")
            return
        }
        subscription.setDirectConsumer(consumer)
        store.write([("a.x", 1)])
        #expect(consumer.events == [Event(key: "a.x", kind: .set, value: 1, revision: 1)])
        #expect(subscription.pendingCount == 0)
    }

    @Test func eventsPublishedWhileTheConsumerCannotTakeThemAreQueuedAndLaterOnesQueueBehind() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let consumer = Consumer()
        let subscription = try await Self.streaming(store, consumer)
        consumer.open.store(false, ordering: .relaxed)
        store.write([("a.x", 1)])
        consumer.open.store(true, ordering: .relaxed)
        // One is queued: the next must not overtake it.
        store.write([("a.x", 2)])
        #expect(consumer.events.isEmpty)
        #expect(Self.pending(subscription).map(\.revision) == [1, 2])
        // Nothing pending any more: handed over again.
        store.write([("a.x", 3)])
        #expect(consumer.events.map(\.revision) == [3])
    }

    @Test func aRevisionWithSeveralEventsForTheSubscriberIsQueuedWhole() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let consumer = Consumer()
        let subscription = try await Self.streaming(store, consumer)
        store.write([("a.x", 1), ("a.y", 1)])
        #expect(consumer.events.isEmpty)
        #expect(Self.pending(subscription).map(\.key) == ["a.x", "a.y"])
    }

    @Test func aBacklogNotYetTakenKeepsLiveEventsQueuedBehindIt() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        store.write([("a.x", 1)])
        let consumer = Consumer()
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.*")]), backlog: store)
        subscription.setDirectConsumer(consumer)
        store.write([("a.x", 2)])
        #expect(consumer.events.isEmpty)
        #expect(Self.pending(subscription) == [
            Event(key: "a.x", kind: .initial, value: 1, revision: 1), .synced(at: 1),
            Event(key: "a.x", kind: .set, value: 2, revision: 2),
        ])
    }

    @Test func aHandedOverEventCountsAsSentWhenTheSubscriberIsEndedAsASlowConsumer() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let consumer = Consumer()
        let subscription = try await Self.streaming(store, consumer)
        store.write([("a.x", 1)])
        consumer.open.store(false, ordering: .relaxed)
        store.write([("a.x", 2)])
        store.hub.endAllAsSlowConsumers()
        var batch: [EncodedEvent] = []
        guard case .ended(.slowConsumer(let revision)) = subscription.next(limit: 8, into: &batch) else {
            Issue.record("the subscription was not ended as a slow consumer")
            return
        }
        // Revision 1 was handed over; 2 was queued and dropped.
        #expect(revision == 1)
    }

    @Test func aRemovedConsumerIsHandedNothingAndAnEndedSubscriptionLetsItGo() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        var consumer: Consumer? = Consumer()
        weak let released = consumer
        let subscription = try await Self.streaming(store, try #require(consumer))
        subscription.setDirectConsumer(nil)
        store.write([("a.x", 1)])
        #expect(consumer?.events.isEmpty == true)
        #expect(Self.pending(subscription).map(\.revision) == [1])
        subscription.setDirectConsumer(consumer)
        subscription.cancel()
        consumer = nil
        #expect(released == nil)
    }
}
