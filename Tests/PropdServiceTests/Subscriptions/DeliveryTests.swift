import Foundation
import PropdCore
import Synchronization
import Testing

@testable import PropdService

/// Live delivery: order, contiguity, fan-out under concurrency.
@Suite struct DeliveryTests {
    @Test func eventsOfARevisionArriveContiguouslyAndInOrder() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.*"), pattern("a.x")]), backlog: store)
        store.write([("a.x", 1), ("b.y", 1), ("a.y", 1)])
        store.write([("a.y", 2), ("a.x", 2)])
        let received = drain(subscription, through: 2)
        // a.x matches two patterns and still arrives once per change.
        #expect(received.live == [
            Event(key: "a.x", kind: .set, value: 1, revision: 1),
            Event(key: "a.y", kind: .set, value: 1, revision: 1),
            Event(key: "a.y", kind: .set, value: 2, revision: 2),
            Event(key: "a.x", kind: .set, value: 2, revision: 2),
        ])
    }

    @Test func aLoneChangeArrivesOnceThoughTwoOfTheSubscribersPatternsMatchIt() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let subscription = try await store.hub.subscribe(
            try SubscriptionRequest(patterns: [pattern("a.*"), pattern("a.x")], initial: false), backlog: store)
        store.write([("a.x", 1)])
        store.write([("a.x", 2)])
        #expect(drain(subscription, through: 2).live == [
            Event(key: "a.x", kind: .set, value: 1, revision: 1),
            Event(key: "a.x", kind: .set, value: 2, revision: 2),
        ])
    }

    @Test func aBatchOfChangeSetsIsDeliveredInRevisionOrder() async throws {
        let hub = SubscriptionHub()
        let store = FakeStore(hub: hub)
        let subscription = try await hub.subscribe(try SubscriptionRequest(patterns: [.all], initial: false), backlog: store)
        let sets = (1...5).map { i in store.commit([Change.set(key("k\(i % 2)"), .integer(Int64(i)))]) }
        hub.publish(sets)
        let received = drain(subscription, through: 5)
        #expect(received.live.map(\.revision) == [1, 2, 3, 4, 5])
    }

    @Test func takingIntoAnArrayFillsItInOrderKeepsItsStorageAndEmptiesItWhenNothingIsTaken() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.*")], initial: false), backlog: store)
        var batch: [EncodedEvent] = []
        batch.reserveCapacity(8)
        let storage = batch.withUnsafeBufferPointer { $0.baseAddress }
        guard case .filledAll = subscription.next(limit: 8, into: &batch) else {
            Issue.record("the backlog's synced event was not taken, alone and last")
            return
        }
        #expect(batch.map(\.event) == [.synced(at: 0)])
        store.write([("a.x", 1), ("a.y", 1), ("b.z", 1)])
        store.write([("a.x", 2)])
        // At most `limit`, the rest left for the next call.
        guard case .filled = subscription.next(limit: 2, into: &batch) else {
            Issue.record("the live events were not taken")
            return
        }
        #expect(batch.map(\.event) == [
            Event(key: "a.x", kind: .set, value: 1, revision: 1), Event(key: "a.y", kind: .set, value: 1, revision: 1),
        ])
        guard case .filledAll = subscription.next(limit: 8, into: &batch) else {
            Issue.record("the last live event was not taken as the last")
            return
        }
        #expect(batch.map(\.event) == [Event(key: "a.x", kind: .set, value: 2, revision: 2)])
        // Every fill went into the storage the array came with.
        #expect(batch.withUnsafeBufferPointer { $0.baseAddress } == storage)
        guard case .pending = subscription.next(limit: 8, into: &batch) else {
            Issue.record("a subscription with nothing queued was not pending")
            return
        }
        #expect(batch.isEmpty)
        store.write([("a.x", 3)])
        subscription.cancel()
        guard case .ended(.cancelled) = subscription.next(limit: 8, into: &batch) else {
            Issue.record("a cancelled subscription did not end")
            return
        }
        #expect(batch.isEmpty)
    }

    @Test func aFillThatTakesEverythingArmsTheWakeUpAndAPartialOneDoesNot() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.*")], initial: false), backlog: store)
        let woken = Flag()
        subscription.onReady { woken.set() }
        var batch: [EncodedEvent] = []
        guard case .filledAll = subscription.next(limit: 8, into: &batch) else {
            Issue.record("the backlog's synced event was not taken as the last")
            return
        }
        // Armed by the fill itself: no call answered `.pending`.
        store.write([("a.x", 1), ("a.y", 1)])
        #expect(woken.isSet)
        woken.clear()
        guard case .filled = subscription.next(limit: 1, into: &batch) else {
            Issue.record("one of two events was not taken")
            return
        }
        // One is left: a consumer asks again, so nothing wakes it.
        store.write([("a.x", 2)])
        #expect(!woken.isSet)
        guard case .filledAll = subscription.next(limit: 8, into: &batch) else {
            Issue.record("the two events left were not taken as the last")
            return
        }
        #expect(batch.map(\.event) == [
            Event(key: "a.y", kind: .set, value: 1, revision: 1), Event(key: "a.x", kind: .set, value: 2, revision: 2),
        ])
        store.write([("a.y", 2)])
        #expect(woken.isSet)
    }

    @Test func thePollingCallNeverArmsTheWakeUpWithEvents() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a.*")], initial: false), backlog: store)
        let woken = Flag()
        subscription.onReady { woken.set() }
        guard case .events(let synced) = subscription.next(limit: 8), synced.map(\.event) == [.synced(at: 0)] else {
            Issue.record("the backlog's synced event was not taken")
            return
        }
        // `next(limit:)` arms the handler only when it answers `.pending`.
        store.write([("a.x", 1)])
        #expect(!woken.isSet)
        guard case .events = subscription.next(limit: 8), case .pending = subscription.next(limit: 8) else {
            Issue.record("the live event was not taken, then pending")
            return
        }
        store.write([("a.x", 2)])
        #expect(woken.isSet)
    }

    @Test func theAsyncSequenceDeliversAndEndsWithTheSubscription() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        store.write([("a", 1)])
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a")]), backlog: store)
        store.write([("a", 2)])
        var seen: [Event] = []
        for try await encoded in subscription.events {
            seen.append(encoded.event)
            if encoded.event.revision == 2 { subscription.cancel() }
        }
        #expect(seen == [
            Event(key: "a", kind: .initial, value: 1, revision: 1), .synced(at: 1),
            Event(key: "a", kind: .set, value: 2, revision: 2),
        ])
    }

    @Test func theAsyncSequenceWaitsForLiveEvents() async throws {
        let store = FakeStore(hub: SubscriptionHub())
        let subscription = try await store.hub.subscribe(try SubscriptionRequest(patterns: [pattern("a")]), backlog: store)
        let consumer = Task {
            var iterator = subscription.events.makeAsyncIterator()
            var seen: [Event] = []
            while let encoded = try await iterator.next() {
                seen.append(encoded.event)
                if seen.count == 3 { break }
            }
            return seen
        }
        // The consumer may or may not be parked yet; either way it must wake.
        store.write([("a", 1)])
        store.write([("a", 2)])
        let seen = try await consumer.value
        #expect(seen.map(\.revision) == [0, 1, 2])
    }

    /// Writers commit and publish in revision order from many threads while
    /// subscribers come and go on others; every subscriber sees, after its
    /// `synced` at R, exactly the matching changes of every revision above R,
    /// in order, each revision contiguous; and its backlog is the state at R.
    @Test func concurrentWritersAndSubscribersSeeEveryRevisionOnce() async throws {
        let hub = SubscriptionHub(configuration: .init(maximumPendingEvents: 1_000_000))
        let keys = (0..<6).flatMap { ["a.k\($0)", "b.k\($0)", "a.n.k\($0)"] }
        // Every subscription also sees commits between its registration and
        // its backlog read, and between the read and the hand-over.
        let finalRevision = Mutex(Revision.none)
        let racing: @Sendable (FakeStore) -> Void = { store in
            // Only while the writers run: the final revision must stay the last one.
            store.writer.withLock { _ in
                guard finalRevision.withLock({ $0 }) == .none else { return }
                let changeSet = store.commit([Change.set(key(keys.randomElement() ?? "a.k0"), "race")])
                store.hub.publish([changeSet])
            }
        }
        let store = FakeStore(hub: hub, beforeRead: racing, afterRead: racing)
        let patternChoices = [["**"], ["a.*"], ["a.**"], ["b.k1", "a.k2"], ["*.k3"], ["b.*", "a.n.*"]]
        let subscribers = 12
        let results = Mutex<[(SubscriptionRequest, Received)]>([])
        let finishedWriters = Atomic(0)

        await onThreads(4 + subscribers) { worker in
            if worker < 4 {
                var generator = SystemRandomNumberGenerator()
                for i in 0..<400 {
                    let count = Int.random(in: 1...3, using: &generator)
                    let changes = (0..<count).map { j -> Change in
                        let k = key(keys.randomElement(using: &generator) ?? "a.k0")
                        return (i + j) % 7 == 0 ? .delete(k) : .set(k, .integer(Int64(i)))
                    }
                    store.write(changes)
                }
                if finishedWriters.add(1, ordering: .acquiringAndReleasing).newValue == 4 {
                    // The last writer adds one revision that touches every key, and makes it
                    // known before publishing it, so whoever receives it knows it is the last.
                    store.writer.withLock { _ in
                        let last = store.commit(keys.map { Change.set(key($0), "end") })
                        finalRevision.withLock { $0 = last.revision }
                        hub.publish([last])
                    }
                }
                return
            }
            let s = worker - 4
            let patterns = patternChoices[s % patternChoices.count].map { pattern($0) }
            let since: Revision? = s % 3 == 2 ? store.revision : nil
            let request: SubscriptionRequest
            do {
                request = try SubscriptionRequest(patterns: patterns, since: since, initial: s % 4 != 1)
            } catch {
                Issue.record("request: \(error)")
                return
            }
            let subscription = blockingSubscribe(hub, request, store)
            guard let subscription else { return }
            var received = Received()
            // Consume while writers run, until the final revision.
            drain(subscription, into: &received) { r in
                let final = finalRevision.withLock { $0 }
                return final > .none && (r.live.contains { $0.revision == final } || (r.synced?.revision ?? .none) >= final)
            }
            results.withLock { $0.append((request, received)) }
        }

        let history = store.history
        let all = results.withLock { $0 }
        #expect(all.count == subscribers)
        for (request, received) in all {
            #expect(!received.timedOut && received.end == nil)
            guard let synced = received.synced else {
                Issue.record("no synced event")
                continue
            }
            #expect(received.events.filter { $0.kind == .synced }.count == 1)
            let expectedLive = history.filter { $0.revision > synced.revision }.flatMap { changeSet in
                changeSet.changes.filter { request.matches($0.key) }.map { $0.event(at: changeSet.revision) }
            }
            #expect(received.live == expectedLive, "patterns \(request.patterns)")
            switch request.backlog {
            case .since(let since):
                let expected = history.filter { $0.revision > since && $0.revision <= synced.revision }.flatMap { changeSet in
                    changeSet.changes.filter { request.matches($0.key) }.map { $0.event(at: changeSet.revision) }
                }
                #expect(received.backlog == expected)
            case .initial:
                let state = store.properties(at: synced.revision).filter { request.matches(key($0.key)) }
                #expect(Set(received.backlog.map(\.key)) == Set(state.keys))
                for event in received.backlog {
                    #expect(event.kind == .initial && event.revision <= synced.revision)
                    #expect(state[event.key] == .some(event.value))
                }
            case .none, .replay:
                #expect(received.backlog.isEmpty)
            }
        }
    }
}

/// Subscribes from a plain thread (the fake store never suspends).
func blockingSubscribe(_ hub: SubscriptionHub, _ request: SubscriptionRequest, _ store: FakeStore) -> Subscription? {
    let result = Mutex<Result<Subscription, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let subscription = try await hub.subscribe(request, backlog: store)
            result.withLock { $0 = .success(subscription) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    // The task needs a thread of the cooperative pool (one per core), which
    // the whole suite's tests share: a generous bound, not a speed.
    guard done.wait(timeout: .now() + 120) == .success else {
        Issue.record("subscribe timed out")
        return nil
    }
    switch result.withLock({ $0 }) {
    case .success(let subscription): return subscription
    case .failure(let error):
        Issue.record("subscribe failed: \(error)")
        return nil
    case nil: return nil
    }
}
