import PropdCore
import Testing

@testable import PropdService

/// The bounded queue: SlowConsumer for a laggard, coalescing for those who ask.
@Suite struct BoundTests {
    private func twoKeys(_ store: FakeStore, _ i: Int) {
        store.write([("k.a", .integer(Int64(i))), ("k.b", .integer(Int64(i)))])
    }

    @Test func aLaggardIsEndedWithTheLastRevisionItFullyGotWhileOthersGetEverything() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 8))
        let store = FakeStore(hub: hub)
        let request = try SubscriptionRequest(patterns: [pattern("k.*")], initial: false)
        let slow = try await hub.subscribe(request, backlog: store)
        let fast = try await hub.subscribe(request, backlog: store)
        var fastReceived = Received()

        twoKeys(store, 1)
        twoKeys(store, 2)
        // synced, r1 (2 events), half of r2: revision 1 is the last fully sent.
        guard case .events(let first) = slow.next(limit: 4) else {
            Issue.record("expected events")
            return
        }
        #expect(first.map(\.event.revision) == [0, 1, 1, 2])
        for i in 3...20 {
            twoKeys(store, i)
            drain(fast, into: &fastReceived) { $0.live.contains { $0.revision == Revision(Int64(i)) } }
        }
        guard case .ended(let end) = slow.next() else {
            Issue.record("the slow consumer should have been ended")
            return
        }
        #expect(end == .slowConsumer(revision: 1))
        #expect(hub.subscriptionCount == 1)
        #expect(fastReceived.live.map(\.revision) == (1...20).flatMap { [Revision(Int64($0)), Revision(Int64($0))] })
        #expect(fastReceived.end == nil)

        // Resuming with since loses nothing.
        let resumed = try await hub.subscribe(try SubscriptionRequest(patterns: [pattern("k.*")], since: 1), backlog: store)
        let again = drain(resumed) { $0.synced != nil }
        #expect(again.backlog.map(\.revision) == (2...20).flatMap { [Revision(Int64($0)), Revision(Int64($0))] })
    }

    /// The store skipped revisions (a cluster node behind etcd's compaction):
    /// every subscriber, coalescing or not, up to date or behind, ends with
    /// `SlowConsumer` at the last revision it got whole; new ones start as before.
    @Test func skippedRevisionsEndEverySubscriberAtTheLastRevisionItGotWhole() async throws {
        let hub = SubscriptionHub()
        let store = FakeStore(hub: hub)
        let plain = try await hub.subscribe(try SubscriptionRequest(patterns: [pattern("k.*")], initial: false), backlog: store)
        let coalescing = try await hub.subscribe(
            try SubscriptionRequest(patterns: [pattern("k.*")], initial: false, coalesce: true), backlog: store)
        twoKeys(store, 1)
        _ = drain(plain) { $0.live.count == 2 }
        _ = drain(coalescing) { $0.live.count == 2 }
        twoKeys(store, 2)  // pending for both
        hub.endAllAsSlowConsumers()
        for subscription in [plain, coalescing] {
            guard case .ended(let end) = subscription.next() else {
                Issue.record("expected the end")
                return
            }
            #expect(end == .slowConsumer(revision: 1))
        }
        #expect(hub.subscriptionCount == 0)
        // History after 1 stays whole for them to resume from.
        #expect(hub.historyFloor() == 1)
        let later = try await hub.subscribe(try SubscriptionRequest(patterns: [pattern("k.*")], initial: false), backlog: store)
        twoKeys(store, 3)
        #expect(drain(later) { $0.live.count == 2 }.live.map(\.revision) == [3, 3])
    }

    @Test func aByteBoundEndsALaggardHoldingTooManyBytes() async throws {
        // {"key":"k.a","kind":"set","value":"xxxxxxxxxx","revision":1} is 60 bytes.
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 1_000, maximumPendingBytes: 150))
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all], initial: false), backlog: store)
        _ = subscription.next()  // synced
        store.write([("k.a", "xxxxxxxxxx")])
        store.write([("k.a", "xxxxxxxxxx")])
        #expect(subscription.pendingCount == 2)
        store.write([("k.a", "xxxxxxxxxx")])  // 180 bytes > 150
        guard case .ended(let end) = subscription.next() else {
            Issue.record("expected the end")
            return
        }
        #expect(end == .slowConsumer(revision: 0))
    }

    @Test func takenEventsNoLongerCountAgainstTheByteBound() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 1_000, maximumPendingBytes: 150))
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all], initial: false), backlog: store)
        var received = Received()
        for i in 1...20 {
            store.write([("k.a", "xxxxxxxxxx")])
            drain(subscription, into: &received) { $0.live.count == i }
        }
        #expect(received.end == nil && received.live.count == 20)
    }

    @Test func theAsyncSequenceThrowsSlowConsumer() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 3))
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all], initial: false), backlog: store)
        for i in 1...3 { twoKeys(store, i) }
        await #expect(throws: SlowConsumer(revision: 0)) {
            for try await _ in subscription.events {}
        }
    }

    @Test func aLaggardBeforeItsBacklogIsReadResumesFromSince() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 4))
        let armed = Flag()
        let store = FakeStore(
            hub: hub,
            beforeRead: { store in
                guard armed.isSet else { return }
                for i in 1...5 { store.write([("k.a", .integer(Int64(i)))]) }
            })
        armed.set()
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all], since: 0), backlog: store)
        #expect(drain(subscription) { _ in false }.end == .slowConsumer(revision: 0))
    }

    @Test func coalescingKeepsTheLatestPendingValuePerKeyInRevisionOrder() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 2))
        let store = FakeStore(hub: hub)
        let request = try SubscriptionRequest(patterns: [.all], initial: false, coalesce: true)
        let subscription = try await hub.subscribe(request, backlog: store)
        store.write([("a", 1), ("b", 1)])  // 1
        store.write([("a", 2)])  // 2
        store.write([("c", 1), ("a", 3)])  // 3
        store.write([("b", 2)])  // 4
        store.write([Change(key: key("c"), kind: .error("bad")), Change.delete(key("d"))])  // 5
        let received = drain(subscription, through: 5)
        #expect(received.end == nil)
        #expect(received.events == [
            .synced(at: 0),
            Event(key: "c", kind: .set, value: 1, revision: 3),
            Event(key: "a", kind: .set, value: 3, revision: 3),
            Event(key: "b", kind: .set, value: 2, revision: 4),
            // An error keeps the value: it does not hide the set before it.
            Event(key: "c", kind: .error, revision: 5, error: "bad"),
            Event(key: "d", kind: .delete, revision: 5),
        ])
    }

    @Test func coalescingNeverDropsSyncedOrTheBacklog() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 1))
        let store = FakeStore(hub: hub)
        store.write([("a", 1)])
        store.write([("a", 2)])
        let request = try SubscriptionRequest(patterns: [.all], since: 0, coalesce: true)
        let subscription = try await hub.subscribe(request, backlog: store)
        store.write([("a", 3)])
        store.write([("a", 4)])
        let received = drain(subscription, through: 4)
        #expect(received.events == [
            Event(key: "a", kind: .set, value: 1, revision: 1),
            Event(key: "a", kind: .set, value: 2, revision: 2),
            .synced(at: 2),
            Event(key: "a", kind: .set, value: 4, revision: 4),
        ])
    }

    @Test func aCoalescingLaggardHoldsAtMostOneEventPerKey() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 4))
        let store = FakeStore(hub: hub)
        let request = try SubscriptionRequest(patterns: [.all], initial: false, coalesce: true)
        let subscription = try await hub.subscribe(request, backlog: store)
        for i in 1...5_000 { store.write([("k\(i % 7)", .integer(Int64(i)))]) }
        #expect(subscription.pendingCount == 1 + 7)  // synced + one per key
        let received = drain(subscription, through: 5_000)
        #expect(received.end == nil)
        #expect(received.live.map(\.revision) == (4_994...5_000).map { Revision(Int64($0)) })
    }
}

@Suite struct OneLargeRevisionTests {
    @Test func oneRevisionLargerThanTheBoundReachesAConsumerThatKeepsUp() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 100, maximumPendingBytes: 4096))
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all], initial: false), backlog: store)
        _ = subscription.next()  // synced
        store.write((0..<1001).map { ("wide.k\($0)", JSONValue.integer(Int64($0))) })
        var received = 0
        while case .events(let batch) = subscription.next(limit: 256) { received += batch.count }
        #expect(received == 1001)
        // It took all of it: the next large revision reaches it too.
        store.write((0..<1001).map { ("wide.k\($0)", JSONValue.integer(1)) })
        received = 0
        while case .events(let batch) = subscription.next(limit: 256) { received += batch.count }
        #expect(received == 1001)
    }
}
