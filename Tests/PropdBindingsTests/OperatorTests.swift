import PropdBindings
import PropdCore
import Testing

@Suite("Operators, each as its RAC counterpart")
struct OperatorTests {
    @Test("map — RAC map: every value is transformed")
    func map() throws {
        let store = Store()
        try store.bind("room.f", "room.temp.map { $0 * 9 / 5 + 32 }")
        store.set("room.temp", 100)
        #expect(store.value("room.f") == 212)
        store.set("room.temp", 21.5)
        #expect(store.value("room.f") == .double(70.7))
    }

    @Test("combineLatest — waits for every source, then fires on any change with the latest of each")
    func combineLatestWaits() throws {
        let store = Store()
        try store.bind("sum", "combineLatest(a, b, c).map { x, y, z in x + y + z }")
        store.set("a", 1)
        store.set("b", 2)
        #expect(store.value("sum") == nil)
        store.set("c", 3)
        #expect(store.value("sum") == 6)
        store.set("a", 10)
        #expect(store.value("sum") == 15)
        #expect(store.history("sum") == [6, 15])
    }

    @Test("combineLatest without map yields the list of latest values (RACTuple)")
    func combineLatestList() throws {
        let store = Store()
        store.set([("a", 1), ("b", "x")])
        try store.bind("pair", "combineLatest(a, b)")
        #expect(store.value("pair") == [1, "x"])
        try store.bind("whole", "combineLatest(a, b).map { list in len(list) }")
        #expect(store.value("whole") == 2)
    }

    @Test("combineLatest — a deleted source makes it wait again")
    func combineLatestDeletedSource() throws {
        let store = Store()
        try store.bind("sum", "combineLatest(a, b).map { $0 + $1 }")
        store.set([("a", 1), ("b", 2)])
        #expect(store.value("sum") == 3)
        store.delete("a")
        store.set("b", 5)
        #expect(store.value("sum") == 3)
        store.set("a", 1)
        #expect(store.value("sum") == 6)
    }

    @Test("merge — RAC merge: any source's value passes; leftmost wins within one revision")
    func merge() throws {
        let store = Store()
        try store.bind("last", "merge(button.a, button.b)")
        store.set("button.b", "b")
        #expect(store.value("last") == "b")
        store.set("button.a", "a")
        #expect(store.value("last") == "a")
        store.set([("button.b", "b2"), ("button.a", "a2")])
        #expect(store.value("last") == "a2")
        #expect(store.history("last") == ["b", "a", "a2"])
    }

    @Test("filter — RAC filter: failing values are dropped and the property keeps its last value")
    func filter() throws {
        let store = Store()
        try store.bind("level", "sensor.level.filter { $0 >= 0 }")
        store.set("sensor.level", 5)
        store.set("sensor.level", -1)
        #expect(store.value("level") == 5)
        store.set("sensor.level", 7)
        #expect(store.history("level") == [5, 7])
        let state = try #require(store.engine.state(of: Store.key("level")))
        #expect(state["states"] == [["op": "filter", "lastPassed": ["value": 7]]])
    }

    @Test("filter — a predicate that is not a bool is an error state")
    func filterNotBool() throws {
        let store = Store()
        try store.bind("x", "a.filter { $0.ok }")
        store.set("a", ["ok": 1])
        #expect(store.error("x")?.contains("must return a bool") == true)
    }

    @Test("distinctUntilChanged — RAC distinctUntilChanged, by JSON equality")
    func distinct() throws {
        let store = Store()
        try store.bind("d", "a.distinctUntilChanged()")
        store.set("a", 1)
        store.set("a", 1.0)
        store.set("a", ["x": 1, "y": 2])
        store.set("a", ["y": 2, "x": 1])
        store.set("a", 2)
        #expect(store.history("d") == [1, ["x": 1, "y": 2], 2])
    }

    @Test("skip(n) — RAC skip: the first n values are ignored, the value at Bind counting as the first")
    func skip() throws {
        let store = Store()
        store.set("a", 0)
        try store.bind("s", "a.skip(2)")
        store.set("a", 1)
        #expect(store.value("s") == nil)
        store.set("a", 2)
        store.set("a", 3)
        #expect(store.history("s") == [2, 3])
    }

    @Test("take(n) — RAC take: the first n values, then frozen")
    func take() throws {
        let store = Store()
        try store.bind("t", "a.take(2)")
        store.set("a", 1)
        store.set("a", 2)
        store.set("a", 3)
        #expect(store.value("t") == 2)
        #expect(store.history("t") == [1, 2])
        #expect(store.set("a", 4).changes.isEmpty)
    }

    @Test("startWith — RAC startWith: the value until the sources produce one")
    func startWith() throws {
        let store = Store()
        try store.bind("s", #"a.startWith("none")"#)
        #expect(store.value("s") == "none")
        store.set("a", "x")
        #expect(store.value("s") == "x")
        // When the source already has a value at Bind, that value wins.
        try store.bind("t", #"a.startWith("none")"#)
        #expect(store.value("t") == "x")
        // Placed before map, the start value goes through it.
        try store.bind("u", "b.startWith(1).map { $0 + 1 }")
        #expect(store.value("u") == 2)
    }

    @Test("catchTo — RAC catchTo: an error yields the fallback instead of an error state")
    func catchTo() throws {
        let store = Store()
        try store.bind("ratio", "combineLatest(disk.used, disk.size).map { u, s in u / s }.catchTo(0)")
        store.set([("disk.used", 5), ("disk.size", 0)])
        #expect(store.value("ratio") == 0)
        #expect(store.error("ratio") == nil)
        store.set("disk.size", 10)
        #expect(store.value("ratio") == 0.5)
    }

    @Test("scan — RAC scanWithStart:reduce:: a running accumulation")
    func scan() throws {
        let store = Store()
        try store.bind("count", "button.a.scan(0) { count, _ in count + 1 }")
        store.set("button.a", true)
        store.set("button.a", true)
        store.set("button.a", false)
        #expect(store.value("count") == 3)
        try store.bind("total", "combineLatest(x, y).scan([]) { acc, a, b in acc + [a * b] }")
        store.set([("x", 2), ("y", 3)])
        store.set("x", 4)
        #expect(store.value("total") == [6, 12])
    }

    @Test("flatMap — RAC flattenMap/switchToLatest: follows the named key and re-subscribes when the name changes")
    func flatMap() throws {
        let store = Store()
        store.set([("profiles.home.volume", 3), ("profiles.work.volume", 7), ("settings.profile", "home")])
        try store.bind("volume", #"settings.profile.flatMap { p in key("profiles." + p + ".volume") }"#)
        #expect(store.value("volume") == 3)
        store.set("profiles.home.volume", 4)
        #expect(store.value("volume") == 4)
        store.set("profiles.work.volume", 8)
        #expect(store.value("volume") == 4)
        store.set("settings.profile", "work")
        #expect(store.value("volume") == 8)
        store.set("profiles.home.volume", 5)
        #expect(store.value("volume") == 8)
        #expect(store.engine.binding(of: Store.key("volume"))?.followed == [Store.key("profiles.work.volume")])
    }

    @Test("flatMap — switching and changing the new target in one revision reads the new value")
    func flatMapSameRevision() throws {
        let store = Store()
        store.set([("p", "a"), ("k.a", 1), ("k.b", 2)])
        try store.bind("v", #"p.flatMap { key("k." + $0) }"#)
        store.set([("p", "b"), ("k.b", 20)])
        #expect(store.value("v") == 20)
    }

    @Test("flatMap — following a derived key higher up the graph stays glitch-free")
    func flatMapToHigherKey() throws {
        let store = Store()
        store.set([("x", 1), ("name", "low")])
        try store.bind("low", "x.map { $0 }")
        try store.bind("mid", "low.map { $0 * 10 }")
        try store.bind("high", "mid.map { $0 * 10 }")
        try store.bind("f", #"name.flatMap { key($0) }"#)
        #expect(store.value("f") == 1)
        // Switch to "high" and change x in the same revision: f must see high's new value.
        store.set([("name", "high"), ("x", 2)])
        #expect(store.value("f") == 200)
        store.set("x", 3)
        #expect(store.value("f") == 300)
        #expect(store.history("f") == [1, 200, 300])
    }

    @Test("flatMap — a name that would close a cycle is an error state; the old key stays followed")
    func flatMapCycle() throws {
        let store = Store()
        store.set([("sel", "a"), ("a", 1)])
        try store.bind("f", #"sel.flatMap { key($0) }"#)
        try store.bind("g", "f.map { $0 + 1 }")
        store.set("sel", "g")
        #expect(store.error("f")?.contains("cycle") == true)
        #expect(store.value("f") == 1)
        store.set("a", 5)
        #expect(store.value("f") == 5)
        #expect(store.value("g") == 6)
    }

    @Test("flatMap — null follows nothing; a non-string name is an error")
    func flatMapNull() throws {
        let store = Store()
        store.set([("sel", "a"), ("a", 1)])
        try store.bind("f", "sel.flatMap { $0 }")
        store.set("sel", .null)
        store.set("a", 2)
        #expect(store.value("f") == 1)
        store.set("sel", 5)
        #expect(store.error("f")?.contains("must name a key") == true)
    }

    @Test("throttle — RAC throttle: emitted once no newer value arrived for the duration")
    func throttle() throws {
        let store = Store()
        try store.bind("q", "search.text.throttle(300ms)")
        store.set("search.text", "a")
        store.clock.advance(by: .milliseconds(100))
        let typed = store.set("search.text", "ab")
        #expect(store.value("q") == nil)
        #expect(typed.nextDeadline == store.clock.now().advanced(by: .milliseconds(300)))
        store.clock.advance(by: .milliseconds(299))
        #expect(store.fire().changes.isEmpty)
        store.clock.advance(by: .milliseconds(1))
        let fired = store.fire()
        #expect(fired.changes == [.set(Store.key("q"), "ab")])
        #expect(fired.nextDeadline == nil)
        #expect(store.history("q") == ["ab"])
    }

    @Test("throttle — a fired value propagates downstream in the same revision")
    func throttleDownstream() throws {
        let store = Store()
        try store.bind("q", "s.throttle(1s)")
        try store.bind("n", "q.map { len($0) }")
        store.set("s", "abc")
        store.clock.advance(by: .seconds(1))
        let fired = store.fire()
        #expect(fired.changes.map(\.key.rawValue) == ["q", "n"])
        #expect(store.value("n") == 3)
    }

    @Test("errors — an evaluation error sets the error and keeps the value; the next good value clears it")
    func errorState() throws {
        let store = Store()
        try store.bind("r", "a.map { 10 / $0 }")
        store.set("a", 2)
        let failing = store.set("a", 0)
        #expect(store.value("r") == 5)
        #expect(store.error("r") == "division by zero at 1:12")
        #expect(failing.changes == [Change(key: Store.key("r"), kind: .error("division by zero at 1:12"))])
        #expect(store.engine.binding(of: Store.key("r"))?.error == "division by zero at 1:12")
        store.set("a", 4)
        #expect(store.value("r") == 2.5)
        #expect(store.error("r") == nil)
        #expect(store.engine.binding(of: Store.key("r"))?.error == nil)
    }

    @Test("errors — a repeated identical error is reported once")
    func repeatedError() throws {
        let store = Store()
        try store.bind("r", "a.map { $0.missing }")
        #expect(!store.set("a", ["x": 1]).changes.isEmpty)
        #expect(store.set("a", ["x": 2]).changes.isEmpty)
    }
}
