import PropdBindings
import PropdCore
import Testing

/// The operators of contract 6.5 (takeUntil, takeWhile, skipWhile, ignore,
/// flattenMap), each against its RAC counterpart in the notes.
@Suite("takeUntil, takeWhile, skipWhile, ignore, flattenMap")
struct SeedOperatorTests {
    // MARK: takeUntil

    @Test("takeUntil — values pass until KEY changes, then the property stays frozen")
    func takeUntil() throws {
        let store = Store()
        store.set([("cell.button", 1), ("cell.reused", false)])
        try store.bind("taps", "cell.button.takeUntil(cell.reused)")
        #expect(store.value("taps") == 1)  // KEY's value at Bind is not a change
        store.set("cell.button", 2)
        #expect(store.value("taps") == 2)
        store.set("cell.reused", true)
        store.set("cell.button", 3)
        #expect(store.value("taps") == 2)
        #expect(store.history("taps") == [1, 2])
        #expect(store.set("cell.button", 4).changes.isEmpty)
        let state = try #require(store.engine.state(of: Store.key("taps")))
        #expect(state["states"] == [["op": "takeUntil", "frozen": true]])
    }

    @Test("takeUntil — KEY set to the value it already has still ends the stream")
    func takeUntilSameValue() throws {
        let store = Store()
        store.set([("a", 1), ("stop", "x")])
        try store.bind("t", "a.takeUntil(stop)")
        store.set("stop", "x")
        store.set("a", 2)
        #expect(store.value("t") == 1)
    }

    @Test("takeUntil — a delete of KEY ends the stream too")
    func takeUntilDelete() throws {
        let store = Store()
        store.set([("a", 1), ("stop", 0)])
        try store.bind("t", "a.takeUntil(stop)")
        store.delete("stop")
        store.set("a", 2)
        #expect(store.value("t") == 1)
    }

    @Test("takeUntil — KEY and the source changing in one revision: that value is not emitted")
    func takeUntilSameRevision() throws {
        let store = Store()
        store.set("a", 1)
        try store.bind("t", "a.map { $0 * 10 }.takeUntil(stop)")
        let propagation = store.set([("a", 2), ("stop", true)])
        #expect(propagation.changes.isEmpty)
        #expect(store.value("t") == 10)
    }

    @Test("takeUntil — a KEY that does not exist yet: its creation ends the stream")
    func takeUntilMissingKey() throws {
        let store = Store()
        try store.bind("t", "a.takeUntil(later)")
        store.set("a", 1)
        #expect(store.value("t") == 1)
        store.set("later", 0)
        store.set("a", 2)
        #expect(store.value("t") == 1)
    }

    @Test("takeUntil — a derived KEY ends the stream when it produces a value, in height order")
    func takeUntilDerivedKey() throws {
        let store = Store()
        store.set([("a", 1), ("level", 0)])
        try store.bind("alarm", "level.filter { $0 > 5 }")
        try store.bind("t", "a.takeUntil(alarm)")
        store.set("level", 3)  // filtered out: alarm does not change
        store.set("a", 2)
        #expect(store.value("t") == 2)
        store.set([("level", 9), ("a", 3)])
        #expect(store.value("t") == 2)
        #expect(store.history("t") == [1, 2])
    }

    @Test("takeUntil — KEY is a source: listed, drawn dashed, and a cycle through it is refused")
    func takeUntilIsASource() throws {
        let store = Store()
        try store.bind("t", "a.map { $0 }.takeUntil(b.stop)")
        #expect(store.engine.binding(of: Store.key("t"))?.sources == [Store.key("a"), Store.key("b.stop")])
        let edges = store.engine.edges()
        let stop = try #require(edges.first { $0.source == Store.key("b.stop") })
        #expect(stop.operators == ["takeUntil"] && stop.isStopSignal && !stop.isDynamic)
        let value = try #require(edges.first { $0.source == Store.key("a") })
        #expect(value.operators == ["map", "takeUntil(b.stop)"] && !value.isStopSignal)
        #expect(store.engine.dot().contains(#""b.stop" -> "t" [label="takeUntil", style=dashed];"#))
        #expect(throws: BindingError.cycle(["b.stop", "t"])) { try store.bind("b.stop", "t.map { $0 }") }
        #expect(throws: BindingError.cycle(["t"])) { try store.bind("t", "a.takeUntil(t)") }
    }

    @Test("takeUntil takes exactly one key", arguments: [
        ("a.takeUntil()", "expected a key inside takeUntil(…), e.g. takeUntil(cell.reused) at 1:13", 13),
        ("a.takeUntil(merge(b, c))", "takeUntil takes one key, whose changes end the stream, not merge(…) at 1:13", 13),
        ("a.takeUntil(b, c)", "expected ')' after the key of takeUntil at 1:14 (found ',')", 14),
        ("a.takeUntil(b.map { $0 })", "expected ')' after the key of takeUntil at 1:14 (found '.')", 14),
        ("a.takeUntil(b..c)", "'b..c' is not a valid key", 13),
    ])
    func takeUntilSyntax(expression: String, message: String, column: Int) throws {
        let refusal = try #require(invalid(expression))
        #expect(refusal.message.hasPrefix(message), "\(refusal.message)")
        #expect((refusal.line, refusal.column) == (1, column))
    }

    @Test("takeUntil — a key that is both the source and KEY: only the value at Bind passes")
    func takeUntilItself() throws {
        let store = Store()
        store.set("a", 1)
        try store.bind("first", "a.takeUntil(a)")
        store.set("a", 2)
        #expect(store.history("first") == [1])
        #expect(store.engine.edges().allSatisfy { !$0.isStopSignal })
    }

    @Test("takeUntil — a pending throttle is dropped once the stream has ended (injected clock)")
    func takeUntilAfterThrottle() throws {
        let store = Store()
        try store.bind("q", "s.throttle(500ms).takeUntil(stop)")
        store.set("s", 1)
        store.clock.advance(by: .milliseconds(500))
        store.fire()
        #expect(store.value("q") == 1)
        store.set("s", 2)
        store.clock.advance(by: .milliseconds(200))
        store.set("stop", true)
        store.clock.advance(by: .milliseconds(300))
        #expect(store.fire().changes.isEmpty)
        #expect(store.value("q") == 1)
    }

    @Test("takeUntil — errors pass until the stream ends, then are ignored")
    func takeUntilErrors() throws {
        let store = Store()
        try store.bind("r", "a.map { 10 / $0 }.takeUntil(stop)")
        store.set("a", 0)
        #expect(store.error("r")?.contains("division by zero") == true)
        store.set("a", 5)
        #expect(store.value("r") == 2)
        store.set("stop", 1)
        #expect(store.set("a", 0).changes.isEmpty)
        #expect(store.error("r") == nil)
    }

    // MARK: takeWhile

    @Test("takeWhile — values pass while the predicate holds; the first failing one freezes")
    func takeWhile() throws {
        let store = Store()
        try store.bind("w", "a.takeWhile { x in x < 10 }")
        store.set("a", 1)
        store.set("a", 5)
        store.set("a", 12)
        store.set("a", 3)
        #expect(store.value("w") == 5)
        #expect(store.history("w") == [1, 5])
        let state = try #require(store.engine.state(of: Store.key("w")))
        #expect(state["states"] == [["op": "takeWhile", "frozen": true]])
    }

    @Test("takeWhile — the value at Bind is the first value: failing it freezes at once")
    func takeWhileAtBind() throws {
        let store = Store()
        store.set("a", 20)
        try store.bind("w", "a.takeWhile { $0 < 10 }")
        store.set("a", 1)
        #expect(store.value("w") == nil)
        #expect(store.history("w").isEmpty)
    }

    @Test("takeWhile — a predicate that errs or is not a bool is an error state and freezes nothing")
    func takeWhileErrors() throws {
        let store = Store()
        try store.bind("w", "a.takeWhile { $0.ok }")
        store.set("a", ["ok": 1])
        #expect(store.error("w") == "the predicate of takeWhile must return a bool, got number at 1:17")
        store.set("a", 5)
        #expect(store.error("w")?.hasPrefix("cannot read field 'ok' of a number") == true, "\(store.error("w") ?? "")")
        store.set("a", ["ok": true])
        #expect(store.value("w") == ["ok": true])
        #expect(store.error("w") == nil)
        store.set("a", ["ok": false])
        store.set("a", ["ok": "x"])
        #expect(store.error("w") == nil)  // frozen: later errors are ignored
    }

    @Test("takeWhile — after combineLatest the predicate takes one parameter per source")
    func takeWhileCombined() throws {
        let store = Store()
        try store.bind("w", "combineLatest(a, b).takeWhile { x, y in x < y }.map { x, _ in x }")
        store.set([("a", 1), ("b", 2)])
        store.set("a", 3)
        store.set("b", 9)
        #expect(store.value("w") == 1)
    }

    // MARK: skipWhile

    @Test("skipWhile — values are dropped while the predicate holds, then every value passes")
    func skipWhile() throws {
        let store = Store()
        store.set("boot.phase", 0)
        try store.bind("ready", "boot.phase.skipWhile { $0 < 3 }")
        #expect(store.value("ready") == nil)
        store.set("boot.phase", 2)
        store.set("boot.phase", 3)
        store.set("boot.phase", 1)
        store.set("boot.phase", 0)
        #expect(store.history("ready") == [3, 1, 0])
        let state = try #require(store.engine.state(of: Store.key("ready")))
        #expect(state["states"] == [["op": "skipWhile", "passing": true]])
    }

    @Test("skipWhile — errors pass while skipping; a predicate error opens nothing")
    func skipWhileErrors() throws {
        let store = Store()
        try store.bind("s", "a.map { 10 / $0 }.skipWhile { $0 > 1 }")
        store.set("a", 0)
        #expect(store.error("s")?.contains("division by zero") == true)
        store.set("a", 5)  // 2 > 1: skipped
        #expect(store.value("s") == nil)
        store.set("a", 10)
        #expect(store.value("s") == 1)
        #expect(store.error("s") == nil)
        try store.bind("t", #"b.skipWhile { $0 > 1 }"#)
        store.set("b", "x")
        #expect(store.error("t") == "'>' compares two numbers or two strings, got string and number at 1:18")
        store.set("b", 0)
        store.set("b", 5)
        #expect(store.history("t") == [0, 5])
    }

    // MARK: ignore

    @Test("ignore — RAC ignore:: values equal (JSON equality) to the argument are dropped")
    func ignore() throws {
        let store = Store()
        try store.bind("text", #"input.text.ignore("sunny")"#)
        store.set("input.text", "rain")
        store.set("input.text", "sunny")
        #expect(store.value("text") == "rain")
        store.set("input.text", "snow")
        #expect(store.history("text") == ["rain", "snow"])
        try store.bind("n", #"k.ignore({"a": 1, "b": [1.0]})"#)
        store.set("k", ["b": [1], "a": 1.0])
        #expect(store.value("n") == nil)
        store.set("k", ["a": 2])
        #expect(store.value("n") == ["a": 2])
        #expect(store.engine.state(of: Store.key("n"))?["states"] == [])
    }

    @Test("ignore — errors pass; the value at Bind is dropped when equal")
    func ignoreErrorsAndBind() throws {
        let store = Store()
        store.set("a", 0)
        try store.bind("r", "a.ignore(0).map { 1 / $0 }")
        #expect(store.value("r") == nil)
        #expect(store.error("r") == nil)
        try store.bind("s", "a.map { 1 / $0 }.ignore(1)")
        #expect(store.error("s")?.contains("division by zero") == true)
    }

    @Test("ignore — the argument is a constant")
    func ignoreConstant() {
        #expect(invalid("a.ignore($0)") != nil)
        #expect(invalid("a.ignore(1 + 1)") == nil)
    }

    // MARK: flattenMap

    @Test("flattenMap — RAC's name for flatMap: the same operator")
    func flattenMap() throws {
        let store = Store()
        store.set([("profiles.home.volume", 3), ("profiles.work.volume", 7), ("settings.profile", "home")])
        try store.bind("volume", #"settings.profile.flattenMap { p in key("profiles." + p + ".volume") }"#)
        #expect(store.value("volume") == 3)
        store.set("settings.profile", "work")
        #expect(store.value("volume") == 7)
        let info = try #require(store.engine.binding(of: Store.key("volume")))
        #expect(info.followed == [Store.key("profiles.work.volume")])
        #expect(info.operators == ["flatMap"])
        #expect(store.engine.state(of: Store.key("volume"))?["states"] == [["op": "flatMap", "target": "profiles.work.volume"]])
    }

    // MARK: Restarts

    @Test("frozen takeUntil and takeWhile, and an open skipWhile, survive a restart")
    func statesSurviveRestart() throws {
        let store = Store()
        store.set([("a", 1), ("stop", 0)])
        try store.bind("u", "a.takeUntil(stop)")
        try store.bind("w", "a.takeWhile { $0 < 5 }")
        try store.bind("s", "a.skipWhile { $0 < 5 }")
        store.set("stop", 1)
        store.set("a", 7)
        let after = store.restarted()
        after.set("a", 2)
        #expect(after.history("u").isEmpty)
        #expect(after.history("w").isEmpty)
        #expect(after.history("s") == [2])
    }
}
