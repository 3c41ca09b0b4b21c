import PropdCore
import Testing

@testable import PropdService

/// The initial / replay / since / synced sequence of the contract.
@Suite struct BacklogTests {
    private func subscribe(
        _ store: FakeStore, _ patterns: [String], since: Revision? = nil, replay: Int? = nil,
        initial: Bool? = nil
    ) async throws -> Subscription {
        let request = try SubscriptionRequest(
            patterns: patterns.map { pattern($0) }, since: since, replay: replay, initial: initial)
        return try await store.hub.subscribe(request, backlog: store)
    }

    private func seeded() -> FakeStore {
        let store = FakeStore(hub: SubscriptionHub())
        store.write([("room.temp", 20), ("room.hum", 40), ("hall.temp", 18)])  // 1
        store.write([("room.temp", 21)])  // 2
        store.write([Change.delete(key("room.hum"))])  // 3
        store.write([("room.temp", 22), ("room.hum", 41)])  // 4
        store.write([Change(key: key("room.temp"), kind: .error("division by zero"))])  // 5
        return store
    }

    @Test func initialIsTheDefault() async throws {
        let store = seeded()
        let subscription = try await subscribe(store, ["room.*"])
        store.write([("room.temp", 23), ("hall.temp", 19)])  // 6
        let received = drain(subscription, through: 6)
        #expect(received.backlog == [
            Event(key: "room.hum", kind: .initial, value: 41, revision: 4),
            Event(key: "room.temp", kind: .initial, value: 22, revision: 5, error: "division by zero"),
        ])
        #expect(received.synced == .synced(at: 5))
        #expect(received.live == [Event(key: "room.temp", kind: .set, value: 23, revision: 6)])
    }

    @Test func initialFalseSendsOnlySyncedThenLive() async throws {
        let store = seeded()
        let subscription = try await subscribe(store, ["room.*"], initial: false)
        store.write([("room.hum", 42)])
        let received = drain(subscription, through: 6)
        #expect(received.events == [.synced(at: 5), Event(key: "room.hum", kind: .set, value: 42, revision: 6)])
    }

    @Test func replayGivesTheLastValuesOldestFirstEndingWithTheCurrentOne() async throws {
        let store = seeded()
        let subscription = try await subscribe(store, ["room.**"], replay: 2, initial: true)
        let received = drain(subscription) { $0.synced != nil }
        #expect(received.backlog == [
            // room.hum: the delete at 3 is not a value.
            Event(key: "room.hum", kind: .replay, value: 40, revision: 1),
            Event(key: "room.hum", kind: .replay, value: 41, revision: 4),
            Event(key: "room.temp", kind: .replay, value: 22, revision: 4),
            // The error keeps the value, as the property does.
            Event(key: "room.temp", kind: .replay, value: 22, revision: 5, error: "division by zero"),
        ])
        #expect(received.synced == .synced(at: 5))
    }

    @Test func replayZeroSendsNoValues() async throws {
        let store = seeded()
        let subscription = try await subscribe(store, ["room.**"], replay: 0)
        let received = drain(subscription) { $0.synced != nil }
        #expect(received.events == [.synced(at: 5)])
    }

    @Test func sinceReplacesInitialAndReplayAndKeepsDeletesAndErrors() async throws {
        let store = seeded()
        let subscription = try await subscribe(store, ["room.*"], since: 2, replay: 3, initial: true)
        store.write([("room.temp", 30)])  // 6
        let received = drain(subscription, through: 6)
        #expect(received.backlog == [
            Event(key: "room.hum", kind: .delete, revision: 3),
            Event(key: "room.temp", kind: .set, value: 22, revision: 4),
            Event(key: "room.hum", kind: .set, value: 41, revision: 4),
            Event(key: "room.temp", kind: .error, revision: 5, error: "division by zero"),
        ])
        #expect(received.synced == .synced(at: 5))
        #expect(received.live == [Event(key: "room.temp", kind: .set, value: 30, revision: 6)])
    }

    @Test func sinceTheCurrentRevisionSendsOnlySynced() async throws {
        let store = seeded()
        let subscription = try await subscribe(store, ["**"], since: 5)
        let received = drain(subscription) { $0.synced != nil }
        #expect(received.events == [.synced(at: 5)])
    }

    @Test func compactedHistoryFailsWithRevisionCompactedAndLeavesNoSubscription() async throws {
        let store = seeded()
        store.compact(through: 3)
        await #expect(throws: SubscriptionError.revisionCompacted(since: 1, oldest: 4)) {
            _ = try await subscribe(store, ["**"], since: 1)
        }
        #expect(store.hub.subscriptionCount == 0)
        // Still fine from a revision history reaches.
        let subscription = try await subscribe(store, ["**"], since: 3)
        #expect(drain(subscription) { $0.synced != nil }.synced == .synced(at: 5))
    }

    @Test func sinceAheadOfTheStoreIsRefused() async throws {
        let store = seeded()
        await #expect(throws: SubscriptionError.sinceAhead(since: 9, current: 5)) {
            _ = try await subscribe(store, ["**"], since: 9)
        }
        #expect(store.hub.subscriptionCount == 0)
    }

    @Test func badParametersAreNamed() {
        #expect(throws: SubscriptionError.invalidParameter(name: "patterns", reason: "at least one pattern is required")) {
            try SubscriptionRequest(patterns: [])
        }
        #expect(throws: SubscriptionError.invalidParameter(name: "replay", reason: "must be 0 or more, got -1")) {
            try SubscriptionRequest(patterns: [.all], replay: -1)
        }
        #expect(throws: SubscriptionError.invalidParameter(name: "since", reason: "must be 0 or more, got -2")) {
            try SubscriptionRequest(patterns: [.all], since: -2)
        }
    }

    @Test func defaultsFollowTheContract() throws {
        #expect(try SubscriptionRequest(patterns: [.all]).backlog == .initial)
        #expect(try SubscriptionRequest(patterns: [.all]).coalesce == false)
        #expect(try SubscriptionRequest(patterns: [.all], initial: false).backlog == .none)
        #expect(try SubscriptionRequest(patterns: [.all], replay: 3, initial: false).backlog == .replay(3))
        #expect(try SubscriptionRequest(patterns: [.all], since: 4, replay: 3).backlog == .since(4))
    }

    /// Commits land between registration and the backlog read, and between
    /// the read and the hand-over: each revision reaches the subscriber
    /// exactly once, either in the backlog or live.
    @Test(arguments: [false, true])
    func registrationRacesTheBacklogWithoutGapOrDuplicate(sinceMode: Bool) async throws {
        let hub = SubscriptionHub()
        let armed = Flag()
        let store = FakeStore(
            hub: hub,
            beforeRead: { store in
                guard armed.isSet else { return }
                // 2 was committed before registration; its publication arrives now.
                store.publishHeldBack()
                // Committed after registration, before the snapshot: in the backlog, not live.
                store.write([("a.x", 10)])
                store.write([("a.y", 11), ("b.z", 1)])
            },
            afterRead: { store in
                guard armed.isSet else { return }
                // Committed after the snapshot, before the backlog is handed over: live only.
                store.write([("a.x", 12)])
                store.write([Change.delete(key("a.y"))])
            })
        store.write([("a.x", 1)])  // 1
        store.commitWithoutPublishing([("a.y", 2)])  // 2
        armed.set()
        let request = try SubscriptionRequest(patterns: [pattern("a.*")], since: sinceMode ? 0 : nil)
        let subscription = try await hub.subscribe(request, backlog: store)
        armed.clear()
        store.write([("a.x", 13)])  // 7
        let received = drain(subscription, through: 7)

        #expect(received.synced == .synced(at: 4))
        #expect(received.live == [
            Event(key: "a.x", kind: .set, value: 12, revision: 5),
            Event(key: "a.y", kind: .delete, revision: 6),
            Event(key: "a.x", kind: .set, value: 13, revision: 7),
        ])
        if sinceMode {
            #expect(received.backlog.map(\.revision) == [1, 2, 3, 4])
        } else {
            #expect(received.backlog == [
                Event(key: "a.x", kind: .initial, value: 10, revision: 3),
                Event(key: "a.y", kind: .initial, value: 11, revision: 4),
            ])
        }
    }

    /// A revision committed before the backlog read but published only after
    /// the subscription is live is already in the backlog: not sent twice.
    @Test func aRevisionPublishedAfterItsBacklogReadIsNotRepeated() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        store.write([("a.x", 1)])  // 1
        store.commitWithoutPublishing([("a.x", 2)])  // 2
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.x")]), backlog: store)
        store.publishHeldBack()
        store.write([("a.x", 3)])  // 3
        let received = drain(subscription, through: 3)
        #expect(received.events == [
            Event(key: "a.x", kind: .initial, value: 2, revision: 2),
            .synced(at: 2),
            Event(key: "a.x", kind: .set, value: 3, revision: 3),
        ])
    }
}
