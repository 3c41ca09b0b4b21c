import PropdBindings
import PropdCore
import Testing

/// `timeout`, `delay` and expiring keys under the injected clock (contract 6.1).
@Suite("Time operators and expiring keys")
struct TimeOperatorTests {
    @Test("timeout — silence counted from Bind becomes the error 'timeout after 30s'; the next value clears it")
    func timeoutFromBind() throws {
        let store = Store()
        let declared = try store.bind("alive", "sensor.timeout(30s)")
        #expect(declared.nextDeadline == store.clock.now().advanced(by: .seconds(30)))
        store.clock.advance(by: .milliseconds(29_999))
        #expect(store.fire().isEmpty)
        store.clock.advance(by: .milliseconds(1))
        let fired = store.fire()
        #expect(fired.changes == [Change(key: Store.key("alive"), kind: .error("timeout after 30s"))])
        #expect(fired.nextDeadline == nil, "a timeout fires once until the next value")
        store.set("sensor", 7)
        #expect(store.value("alive") == 7)
        #expect(store.error("alive") == nil)
        #expect(store.engine.nextDeadline == store.clock.now().advanced(by: .seconds(30)))
    }

    @Test("timeout — each value restarts the wait; errors pass without restarting it")
    func timeoutRestarts() throws {
        let store = Store()
        store.set("s", 1)
        try store.bind("t", "s.map { 10 / $0 }.timeout(500ms)")
        #expect(store.value("t") == 10)
        store.clock.advance(by: .milliseconds(400))
        store.set("s", 2)
        store.clock.advance(by: .milliseconds(400))
        #expect(store.fire().isEmpty, "the second value restarted the wait")
        store.set("s", 0)
        #expect(store.error("t") == "division by zero at 1:12")
        store.clock.advance(by: .milliseconds(100))
        #expect(store.fire().changes == [Change(key: Store.key("t"), kind: .error("timeout after 500ms"))])
        #expect(store.value("t") == 5)
    }

    @Test("timeout(…).catchTo(null) turns a silent producer into null")
    func timeoutCatchTo() throws {
        let store = Store()
        store.set("x", "hello")
        try store.bind("y", "x.timeout(1s).catchTo(null)")
        #expect(store.value("y") == "hello")
        store.clock.advance(by: .seconds(1))
        store.fire()
        #expect(store.value("y") == .null)
        #expect(store.error("y") == nil)
    }

    @Test("delay — each value is emitted the duration after it arrived, in order, one per firing")
    func delayInOrder() throws {
        let store = Store()
        try store.bind("d", "s.delay(1s)")
        store.set("s", 1)
        store.clock.advance(by: .milliseconds(300))
        store.set("s", 2)
        #expect(store.value("d") == nil)
        store.clock.advance(by: .milliseconds(700))
        #expect(store.fire().changes == [.set(Store.key("d"), 1)])
        #expect(store.engine.nextDeadline == store.clock.now().advanced(by: .milliseconds(300)))
        store.clock.advance(by: .milliseconds(300))
        #expect(store.fire().changes == [.set(Store.key("d"), 2)])
        #expect(store.engine.nextDeadline == nil)

        // Two values due at the same instant go out in two firings, oldest first.
        store.set("s", 3)
        store.set("s", 4)
        store.clock.advance(by: .seconds(5))
        #expect(store.fire().changes == [.set(Store.key("d"), 3)])
        #expect(store.engine.nextDeadline.map { $0 <= store.clock.now() } == true)
        #expect(store.fire().changes == [.set(Store.key("d"), 4)])
        #expect(store.history("d") == [1, 2, 3, 4])
    }

    @Test("delay — errors are not delayed")
    func delayErrors() throws {
        let store = Store()
        try store.bind("d", "s.map { 10 / $0 }.delay(200ms)")
        store.set("s", 5)
        store.set("s", 0)
        #expect(store.error("d") == "division by zero at 1:12")
        store.clock.advance(by: .milliseconds(200))
        store.fire()
        #expect(store.value("d") == 2)
        #expect(store.error("d") == nil)
    }

    @Test("timeout and delay state survive a restart: deadlines and queued values")
    func timeStateRestores() throws {
        let store = Store()
        try store.bind("d", "s.delay(1s)")
        try store.bind("t", "s.timeout(2s)")
        store.set("s", "a")
        store.clock.advance(by: .milliseconds(500))
        let after = Store()
        after.clock.set(store.clock.now())
        after.values = store.values
        let saved = store.engine.bindings.map {
            RestoredBinding(key: $0.key, expression: $0.expression, state: store.states[$0.key])
        }
        #expect(after.engine.restore(saved).isEmpty)
        #expect(after.engine.nextDeadline == store.engine.nextDeadline)
        after.clock.advance(by: .milliseconds(500))
        #expect(after.fire().changes == [.set(Store.key("d"), "a")])
        after.clock.advance(by: .seconds(1))
        #expect(after.fire().changes == [Change(key: Store.key("t"), kind: .error("timeout after 2s"))])
    }

    @Test("the durations of timeout and delay are checked like throttle's")
    func durationsChecked() {
        #expect(invalid("a.timeout(0ms)")?.message.contains("must be longer than 0ms") == true)
        #expect(invalid("a.delay(5)")?.message.contains("expected a duration like 300ms, 1s or 2m inside delay(…)") == true)
        #expect(invalid("a.timeout(1s)") == nil)
        #expect(invalid("a.delay(1.5s).map { $0 }") == nil)
    }

    @Test("an expiring key is deleted at its deadline; bindings see a deletion (combineLatest waits again)")
    func expiryIsADeletion() throws {
        let store = Store()
        try store.bind("both", "combineLatest(a, b).map { $0 + $1 }")
        store.set("a", 1)
        store.set("b", 2, ttl: .seconds(10))
        #expect(store.value("both") == 3)
        store.clock.advance(by: .milliseconds(9_999))
        #expect(store.fire().isEmpty)
        store.clock.advance(by: .milliseconds(1))
        let fired = store.fire()
        #expect(fired.expired == [Store.key("b")])
        #expect(store.value("b") == nil)
        #expect(store.engine.expiry(of: Store.key("b")) == nil)
        store.set("a", 5)
        #expect(store.value("both") == 3, "combineLatest waits for b again")
        store.set("b", 1)
        #expect(store.value("both") == 6)
    }

    @Test("a heartbeat restarts the clock; a Set without ttl makes the key permanent")
    func heartbeats() throws {
        let store = Store()
        store.set("hb", 1, ttl: .seconds(3))
        store.clock.advance(by: .seconds(2))
        store.set("hb", 2, ttl: .seconds(3))
        store.clock.advance(by: .seconds(2))
        #expect(store.fire().isEmpty, "the heartbeat moved the deadline")
        #expect(store.engine.expiry(of: Store.key("hb")) == store.clock.now().advanced(by: .seconds(1)))
        store.engine.expire([Store.key("hb")], at: nil)
        #expect(store.engine.expiringCount == 0)
        store.clock.advance(by: .seconds(60))
        #expect(store.fire().isEmpty)
        #expect(store.value("hb") == 2)
    }

    @Test("expiries and time operators due at one instant fire together, in one propagation")
    func oneRevisionPerInstant() throws {
        let store = Store()
        try store.bind("q", "s.throttle(1s)")
        try store.bind("n", "k.map { $0 ?? 0 }")
        store.set("s", "x")
        store.set("k", 1, ttl: .seconds(1))
        store.set("j", 2, ttl: .milliseconds(500))
        store.clock.advance(by: .seconds(2))
        let fired = store.fire()
        #expect(Set(fired.expired) == [Store.key("k"), Store.key("j")])
        #expect(fired.changes == [.set(Store.key("q"), "x")])
        #expect(store.engine.pendingDeadlines == 0)
    }
}
