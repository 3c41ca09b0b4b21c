import PropdCore
import PropdWire
import Synchronization
import Testing

@testable import PropdService

/// Encoding once per event, and freeing what leaves.
@Suite struct SharingTests {
    final class CountingEncoder: Sendable {
        let live = Atomic(0)
        let other = Atomic(0)
        var encoder: EventEncoder {
            { event in
                switch event.kind {
                case .set, .delete, .error: self.live.add(1, ordering: .relaxed)
                case .initial, .replay, .synced: self.other.add(1, ordering: .relaxed)
                }
                return EventEncoding.jsonObject(event)
            }
        }
    }

    /// Lazily (no byte bound) and eagerly (byte bound).
    @Test(arguments: [nil, 16 << 20] as [Int?])
    func eachEventIsEncodedOnceForAllSubscribers(byteBound: Int?) async throws {
        let counter = CountingEncoder()
        let hub = SubscriptionHub(configuration: .init(maximumPendingBytes: byteBound), encoder: counter.encoder)
        let store = FakeStore(hub: hub)
        var subscriptions: [Subscription] = []
        for _ in 0..<50 {
            subscriptions.append(try await hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.*")], initial: false), backlog: store))
        }
        for i in 1...100 { store.write([("a.x", .integer(Int64(i))), ("nobody.y", 1)]) }
        for subscription in subscriptions {
            let received = drain(subscription, through: 100)
            #expect(received.live.count == 100)
            if case .events(let batch) = subscription.next() { Issue.record("left over: \(batch.count)") }
        }
        // Every subscriber touched every event's bytes; 100 encodings in all.
        #expect(counter.live.load(ordering: .relaxed) == 100)
        // The synced markers are per subscriber.
        #expect(counter.other.load(ordering: .relaxed) == 50)
    }

    @Test func withoutAByteBoundAnEventNobodyTakesIsNeverEncoded() async throws {
        let counter = CountingEncoder()
        let hub = SubscriptionHub(configuration: .init(maximumPendingBytes: nil), encoder: counter.encoder)
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.x")], initial: false), backlog: store)
        store.write([("b.y", 1)])
        store.write([("a.x", 1)])
        subscription.cancel()
        #expect(counter.live.load(ordering: .relaxed) == 0)
    }

    @Test func theDefaultEncodingIsTheContractsEventObject() {
        let encode = EventEncoding.jsonObject
        let set = Event(key: "room.temp", kind: .set, value: ["c": 21, "s": "a\"b"], revision: 7)
        #expect(String(decoding: encode(set), as: UTF8.self) == #"{"key":"room.temp","kind":"set","value":{"c":21,"s":"a\"b"},"revision":7}"#)
        let error = Event(key: "d", kind: .error, revision: 8, error: "division by zero")
        #expect(String(decoding: encode(error), as: UTF8.self) == #"{"key":"d","kind":"error","revision":8,"error":"division by zero"}"#)
        #expect(String(decoding: encode(.synced(at: 9)), as: UTF8.self) == #"{"key":"","kind":"synced","revision":9}"#)
    }

    @Test func cancellingOrReleasingFreesTheSubscription() async throws {
        let hub = SubscriptionHub()
        let store = FakeStore(hub: hub)
        var subscriptions: [Subscription] = []
        for i in 0..<20 {
            subscriptions.append(try await hub.subscribe(try SubscriptionRequest(patterns: [pattern("k\(i % 3).*")]), backlog: store))
        }
        #expect(hub.subscriptionCount == 20)
        weak let core = subscriptions[0].core
        store.write([("k0.a", 1)])
        #expect(subscriptions[0].pendingCount == 2)  // synced + the event

        for subscription in subscriptions[..<10] { subscription.cancel() }
        #expect(hub.subscriptionCount == 10)
        guard case .ended(.cancelled) = subscriptions[0].next() else {
            Issue.record("a cancelled subscription ends")
            return
        }
        #expect(subscriptions[0].pendingCount == 0)
        subscriptions[0].cancel()  // idempotent
        #expect(hub.subscriptionCount == 10)

        subscriptions.removeAll()  // released: RACDisposable
        #expect(hub.subscriptionCount == 0)
        #expect(core == nil)
        store.write([("k0.a", 2)])  // nobody left to deliver to
    }

    /// A handler that holds its own subscription (a connection holding both)
    /// is let go when the subscription ends, outside the hub's locks.
    @Test func aHandlerHoldingItsSubscriptionIsReleasedWhenItEnds() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 2))
        let store = FakeStore(hub: hub)
        var subscription: Subscription? = try await hub.subscribe(
            try SubscriptionRequest(patterns: [.all], initial: false), backlog: store)
        weak let released = subscription
        let wakes = Atomic(0)
        if let held = subscription {
            held.onReady {
                _ = held.id  // the handler holds the subscription
                wakes.add(1, ordering: .relaxed)
            }
            _ = held.next()  // synced
            _ = held.next()  // pending: armed
        }
        subscription = nil
        #expect(released != nil)  // kept alive by its own handler
        // Wakes at the first (then reads nothing), ends at the third.
        for i in 1...3 { store.write([("a", .integer(Int64(i)))]) }
        #expect(wakes.load(ordering: .relaxed) == 2)
        #expect(released == nil)
        #expect(hub.subscriptionCount == 0)
    }

    @Test func closingTheHubEndsEverySubscriptionAndRefusesNewOnes() async throws {
        let hub = SubscriptionHub()
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all]), backlog: store)
        hub.close()
        #expect(hub.subscriptionCount == 0)
        #expect(drain(subscription) { _ in false }.end == .hubClosed)
        await #expect(throws: SubscriptionError.hubClosed) {
            _ = try await hub.subscribe(try SubscriptionRequest(patterns: [.all]), backlog: store)
        }
    }

    @Test func aWaitingConsumerIsWokenOncePerPendingAnswer() async throws {
        let hub = SubscriptionHub()
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all], initial: false), backlog: store)
        let wakeups = Atomic(0)
        subscription.onReady { wakeups.add(1, ordering: .relaxed) }
        _ = subscription.next()  // synced
        guard case .pending = subscription.next() else {
            Issue.record("expected pending")
            return
        }
        store.write([("a", 1)])
        store.write([("a", 2)])  // the consumer has not asked again: no second call
        #expect(wakeups.load(ordering: .relaxed) == 1)
        _ = subscription.next()
        _ = subscription.next()
        store.write([("a", 3)])
        #expect(wakeups.load(ordering: .relaxed) == 2)
    }
}
