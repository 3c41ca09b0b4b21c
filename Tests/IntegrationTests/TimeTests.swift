import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// Timers against a real propd on the real clock: each test waits for the
/// event it expects, with a generous bound, and never asserts a speed. On
/// a cluster node, the node fires them as the holder of the timer election.
@Suite struct TimeTests {
    /// Milliseconds since the epoch, as `expires` counts them.
    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test(arguments: StoreKind.available) func aReplacedThrottleFiresWithNoOtherWrite(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.bind("t.out", "t.in.throttle(1s)")
        let observer = EventCollector(client.observe(["t.out"], initial: false))
        _ = try await observer.synced()
        try await client.set(["t.in": 1])
        // Replaced within the window (on a loaded machine the pause may
        // outlast it; then 1 is emitted first, as it should be): the wake-up
        // armed for the first deadline finds nothing due and must arm again.
        try await Task.sleep(for: .milliseconds(100))
        let second = try await client.set(["t.in": 2])
        let events = try await observer.take(timeout: .seconds(20)) { $0.last?.value == 2 }
        let fired = try #require(events.last)
        #expect(fired == Event(key: "t.out", kind: .set, value: 2, revision: fired.revision))
        daemon.expectSuccessive([second, fired.revision])
        #expect(try await client.get(["t.out"]).first?.value == 2)
    }

    @Test(arguments: StoreKind.available) func randomizedDebounceKeepsTheLastValue(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.bind("deb.out", "deb.in.throttle(150ms)")
        let observer = EventCollector(client.observe(["deb.out"], initial: false))
        _ = try await observer.synced()
        for trial in 0..<6 {
            let last = Int64(trial * 10 + 9)
            for value in Int64(trial * 10)...last {
                try await client.set(["deb.in": .integer(value)])
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...60)))
            }
            let events = try await observer.take(timeout: .seconds(20)) { $0.last?.value == .integer(last) }
            #expect(events.last?.value == .integer(last), "trial \(trial)")
        }
    }

    @Test(arguments: StoreKind.available) func anExpiringKeyIsDeletedAsARevisionOfItsOwn(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let before = Self.now()
        try await client.set(["lease.a": "me"], ttl: 600_000)
        let leased = try await client.get(["lease.a"])[0]
        let expires = try #require(leased.expires)
        #expect(expires >= before + 600_000 && expires <= Self.now() + 600_000)
        let observer = EventCollector(client.observe(["lease.*"], initial: false))
        _ = try await observer.synced()
        // A heartbeat with a short ttl: the clock restarts from it.
        let written = try await client.set(["lease.a": "me", "lease.b": 2], ttl: 300)
        _ = try await observer.take(timeout: .seconds(20)) { $0.count == 2 }
        let events = try await observer.take(timeout: .seconds(20)) { $0.count == 2 }
        #expect(events.map(\.kind) == [.delete, .delete])
        #expect(Set(events.map(\.key)) == ["lease.a", "lease.b"])
        #expect(events[0].revision == events[1].revision, "one revision for one firing instant")
        daemon.expectSuccessive([written, events[0].revision])
        #expect(try await client.list("lease.*").properties.isEmpty)
        let history = try await client.history("lease.a")
        #expect(history.map(\.kind) == [.delete, .set, .set])
    }

    @Test(arguments: StoreKind.available) func heartbeatsKeepAKeyAndASetWithoutTTLMakesItPermanent(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["hb.node": 1], ttl: 600_000)
        let first = try #require(try await client.get(["hb.node"])[0].expires)
        try await Task.sleep(for: .milliseconds(20))
        try await client.set(["hb.node": 2], ttl: 600_000)
        let second = try #require(try await client.get(["hb.node"])[0].expires)
        #expect(second > first, "a heartbeat restarts the clock")
        try await client.set(["hb.node": 3])
        #expect(try await client.get(["hb.node"])[0].expires == nil)
        // Permanent now: a short-lived neighbour expires, this key stays.
        let observer = EventCollector(client.observe(["hb.*"], initial: false))
        _ = try await observer.synced()
        try await client.set(["hb.short": 1], ttl: 50)
        let events = try await observer.take(timeout: .seconds(20)) { $0.last?.kind == .delete }
        #expect(events.last?.key == "hb.short")
        #expect(try await client.get(["hb.node"])[0].value == 3)
    }

    @Test(arguments: StoreKind.available) func badTTLsAndDerivedKeysAreRefusedAndChangeNothing(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let source = try await client.set(["src": 1])
        let bound = try await client.bind("derived", "src.map { $0 + 1 }").revision
        daemon.expectFirstWrites([source, bound])
        for ttl: Int64 in [0, -5, (1 << 31) + 1] {
            await #expect(throws: PropdClientError.other(name: "org.varlink.service.InvalidParameter",
                parameters: ["parameter": "ttl"])) {
                try await client.set(["x": 1], ttl: ttl)
            }
        }
        await #expect(throws: PropdClientError.refused(.keyIsDerived(key: "derived"))) {
            try await client.set(["derived": 5], ttl: 1_000)
        }
        #expect(try await client.stats().revision == bound)
        // The largest ttl is accepted.
        try await client.set(["far": 1], ttl: 1 << 31)
        #expect(try await client.get(["far"])[0].expires != nil)
    }

    @Test(arguments: StoreKind.available) func aBindingSeesAnExpiryAsADeletion(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.bind("ok", "combineLatest(p.a, p.b).map { $0 + $1 }")
        try await client.set(["p.a": 1])
        let observer = EventCollector(client.observe(["p.b"], initial: false))
        _ = try await observer.synced()
        try await client.set(["p.b": 2], ttl: 100)
        _ = try await observer.take(timeout: .seconds(20)) { $0.last?.kind == .delete }
        try await client.set(["p.a": 5])
        #expect(try await client.get(["ok"])[0].value == 3, "combineLatest waits for p.b again")
        try await client.set(["p.b": 1])
        #expect(try await client.get(["ok"])[0].value == 6)
    }

    @Test(arguments: StoreKind.available) func pendingDeadlinesSurviveARestartAndPastOnesFireAtStart(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        do {
            let client = try await PropdClient.connect(to: daemon.socketPath)
            try await client.set(["gone.soon": 1], ttl: 200)
            try await client.set(["stays.a.while": 1], ttl: 600_000)
            try await client.bind("late", "src.delay(300ms)")
            try await client.set(["src": "v"])
            await client.close()
        }
        #expect(daemon.process.stop() == 0)
        // Wait out the deadlines while the daemon is down.
        try await Task.sleep(for: .milliseconds(400))
        try daemon.process.restart()
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let observer = EventCollector(client.observe(["gone.soon", "late"], since: 0))
        _ = try await observer.take(timeout: .seconds(20)) { events in
            events.contains { $0.key == "gone.soon" && $0.kind == .delete }
                && events.contains { $0.key == "late" && $0.kind == .set && $0.value == "v" }
        }
        #expect(try await client.get(["stays.a.while"])[0].expires != nil)
    }

    @Test(arguments: StoreKind.available) func timeoutAndDelayRunOnTheRealClock(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let observer = EventCollector(client.observe(["quiet", "later"], initial: false))
        _ = try await observer.synced()
        try await client.bind("quiet", "sensor.timeout(200ms)")
        try await client.bind("later", "sensor.delay(150ms)")
        let first = try await observer.take(timeout: .seconds(20)) { $0.last?.kind == .error }
        #expect(first.last == Event(key: "quiet", kind: .error, revision: first.last?.revision ?? 0,
            error: "timeout after 200ms"))
        let written = try await client.set(["sensor": 7])
        let next = try await observer.take(timeout: .seconds(20)) { $0.contains { $0.key == "later" } }
        #expect(next.first == Event(key: "quiet", kind: .set, value: 7, revision: written))
        let delayed = try #require(next.first { $0.key == "later" })
        #expect(delayed.value == 7)
        #expect(delayed.revision > written, "a delayed value is a revision of its own")
    }

    @Test(arguments: StoreKind.available) func errorEventsCarryTheKeptValueAndClearingIsAnEvent(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.bind("de.out", "de.in.map { 10 / $0 }.distinctUntilChanged()")
        let observer = EventCollector(client.observe(["de.out"], initial: false))
        _ = try await observer.synced()
        let a = try await client.set(["de.in": 5])
        let b = try await client.set(["de.in": 0])
        let c = try await client.set(["de.in": 5])
        let events = try await observer.take(timeout: .seconds(20)) { $0.count == 3 }
        #expect(events[0] == Event(key: "de.out", kind: .set, value: 2, revision: a))
        #expect(events[1] == Event(key: "de.out", kind: .error, value: 2, revision: b, error: "division by zero at 1:16"))
        #expect(events[2] == Event(key: "de.out", kind: .set, value: 2, revision: c))
        let property = try await client.get(["de.out"])[0]
        #expect(property.value == 2 && property.error == nil)
        // The same error event from history (`since`) carries the value too.
        let backlog = try await EventCollector(client.observe(["de.out"], since: a)).synced()
        #expect(backlog.first == events[1])
    }

    @Test(arguments: StoreKind.available) func unbindOfAKeyInErrorLeavesAPlainPropertyWithoutError(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["u.in": 2])
        try await client.bind("u.out", "u.in.map { 10 / $0 }")
        try await client.set(["u.in": 0])
        #expect(try await client.get(["u.out"])[0].error != nil)
        try await client.unbind("u.out")
        let plain = try await client.get(["u.out"])[0]
        #expect(plain.value == 5)
        #expect(plain.error == nil)
        #expect(plain.binding == nil)
    }
}
