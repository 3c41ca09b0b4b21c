import PropdBindings
import PropdCore
import Testing

/// Operator state is data: persisted with each change, restored after a
/// restart, and the restored engine continues exactly where the old one stopped.
@Suite("Operator state: save and restore")
struct StateTests {
    /// A new engine restored from `store`'s persisted bindings and states, as after a restart.
    private func restarted(_ store: Store) -> Store {
        let next = Store()
        next.clock.set(store.clock.now())
        next.values = store.values
        next.errors = store.errors
        let saved = store.engine.bindings.map {
            RestoredBinding(key: $0.key, expression: $0.expression, state: store.states[$0.key])
        }
        #expect(next.engine.restore(saved).isEmpty)
        next.states = store.states
        return next
    }

    @Test("take, skip, scan, distinctUntilChanged and filter continue after a restart")
    func countersContinue() throws {
        let store = Store()
        try store.bind("t", "a.take(3)")
        try store.bind("s", "a.skip(2)")
        try store.bind("n", "a.scan(0) { acc, x in acc + x }")
        try store.bind("d", "a.map { $0 % 2 }.distinctUntilChanged()")
        try store.bind("f", "a.filter { $0 > 1 }")
        store.set("a", 1)
        store.set("a", 2)
        for key in ["t", "s", "n", "d", "f"] { #expect(store.engine.state(of: Store.key(key)) == store.states[Store.key(key)]) }

        let after = restarted(store)
        after.set("a", 3)
        after.set("a", 5)
        #expect(after.history("t") == [3])
        #expect(after.value("t") == 3)
        #expect(after.history("s") == [3, 5])
        #expect(after.value("n") == 11)
        #expect(after.history("d") == [1])
        #expect(after.value("f") == 5)
    }

    @Test("combineLatest remembers its sources' latest values across a restart")
    func combineLatestContinues() throws {
        let store = Store()
        try store.bind("sum", "combineLatest(a, b).map { $0 + $1 }")
        store.set([("a", 1), ("b", 2)])
        let after = restarted(store)
        // Only b changes; a's latest comes from the restored state, not from a lookup.
        let propagation = after.engine.propagate([.set(Store.key("b"), 10)]) { _ in nil }
        #expect(propagation.changes == [.set(Store.key("sum"), 11)])
    }

    @Test("a pending throttle survives a restart and fires at its deadline")
    func throttleContinues() throws {
        let store = Store()
        try store.bind("q", "s.throttle(500ms)")
        store.set("s", "x")
        store.clock.advance(by: .milliseconds(200))
        let after = restarted(store)
        #expect(after.engine.nextDeadline == store.engine.nextDeadline)
        after.clock.advance(by: .milliseconds(299))
        #expect(after.fire().changes.isEmpty)
        after.clock.advance(by: .milliseconds(1))
        #expect(after.fire().changes == [.set(Store.key("q"), "x")])
    }

    @Test("a followed flatMap key is followed again after a restart")
    func flatMapContinues() throws {
        let store = Store()
        store.set([("sel", "a"), ("a", 1)])
        try store.bind("f", #"sel.flatMap { key($0) }"#)
        let after = restarted(store)
        #expect(after.engine.binding(of: Store.key("f"))?.followed == [Store.key("a")])
        after.set("a", 2)
        #expect(after.value("f") == 2)
    }

    @Test("restoring emits nothing and keeps the error state")
    func restoreIsSilent() throws {
        let store = Store()
        try store.bind("r", "a.map { 1 / $0 }")
        store.set("a", 0)
        let after = restarted(store)
        #expect(after.engine.binding(of: Store.key("r"))?.error == "division by zero at 1:11")
        #expect(after.set("other", 1).changes.isEmpty)
        after.set("a", 4)
        #expect(after.value("r") == 0.25)
        #expect(after.engine.binding(of: Store.key("r"))?.error == nil)
    }

    @Test("restore is order-independent and rebuilds heights; bad entries are reported")
    func restoreOrder() throws {
        let engine = BindingEngine(clock: ManualBindingClock())
        let failures = engine.restore([
            RestoredBinding(key: Store.key("d"), expression: "combineLatest(b, c).map { $0 + $1 }", state: nil),
            RestoredBinding(key: Store.key("c"), expression: "b.map { $0 * 10 }", state: nil),
            RestoredBinding(key: Store.key("b"), expression: "a.map { $0 + 1 }", state: ["states": ["bogus"]]),
            RestoredBinding(key: Store.key("bad"), expression: "a.map {", state: nil),
            RestoredBinding(key: Store.key("x"), expression: "y.map { $0 }", state: nil),
            RestoredBinding(key: Store.key("y"), expression: "x.map { $0 }", state: nil),
        ])
        #expect(failures.keys.map(\.rawValue).sorted() == ["bad", "x", "y"])
        #expect(engine.height(of: Store.key("d")) == 3)
        let propagation = engine.propagate([.set(Store.key("a"), 1)]) { _ in nil }
        #expect(propagation.changes.map(\.key.rawValue) == ["b", "c", "d"])
        #expect(propagation.changes.last == .set(Store.key("d"), 22))
    }
}
