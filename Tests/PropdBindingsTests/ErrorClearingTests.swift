import PropdBindings
import PropdCore
import Testing

/// Section 4: "the next successful evaluation clears" the error state — also
/// when the value it produces is then dropped by an operator.
@Suite("A successful evaluation clears the error")
struct ErrorClearingTests {
    @Test("distinctUntilChanged: 5, 0, 5 ends with value 2 and no error, sent as a set of the kept value")
    func distinct() throws {
        let store = Store()
        try store.bind("de.out", "de.in.map { 10 / $0 }.distinctUntilChanged()")
        store.set("de.in", 5)
        store.set("de.in", 0)
        #expect(store.error("de.out") != nil)
        let cleared = store.set("de.in", 5)
        #expect(cleared.changes == [.set(Store.key("de.out"), 2)])
        #expect(store.value("de.out") == 2)
        #expect(store.error("de.out") == nil)
        #expect(store.engine.binding(of: Store.key("de.out"))?.error == nil)
    }

    @Test("filter: 5, \"n/a\", -1 ends with value 5 and no error")
    func filter() throws {
        let store = Store()
        try store.bind("fe.out", "fe.level.filter { $0 >= 0 }")
        store.set("fe.level", 5)
        store.set("fe.level", "n/a")
        #expect(store.error("fe.out") != nil)
        store.set("fe.level", -1)
        #expect(store.value("fe.out") == 5)
        #expect(store.error("fe.out") == nil)
    }

    @Test("skip and take dropping the value clear the error too")
    func skipAndTake() throws {
        let store = Store()
        try store.bind("s", "a.map { 10 / $0 }.skip(3)")
        try store.bind("t", "a.map { 10 / $0 }.take(1)")
        store.set("a", 0)
        store.set("a", 5)
        #expect(store.value("t") == 2)
        store.set("a", 0)
        #expect(store.error("s") != nil)
        #expect(store.error("t") == nil, "take(1) is frozen: errors are ignored")
        store.set("a", 2)
        #expect(store.error("s") == nil, "skip dropped 5, but the evaluation succeeded")
        #expect(store.value("s") == nil)
        #expect(store.error("t") == nil)
    }

    @Test("a key with no value yet has its error removed without a value")
    func noKeptValue() throws {
        let store = Store()
        try store.bind("f", "a.map { 10 / $0 }.filter { $0 > 100 }")
        store.set("a", 0)
        #expect(store.error("f") != nil)
        let cleared = store.set("a", 5)
        #expect(cleared.clearedErrors == [Store.key("f")])
        #expect(cleared.changes.isEmpty)
        #expect(store.error("f") == nil)
        #expect(store.value("f") == nil)
    }

    @Test("throttle holding a value is not a drop: the error stays until the value is emitted")
    func throttleHolds() throws {
        let store = Store()
        try store.bind("q", "a.map { 10 / $0 }.throttle(100ms)")
        store.set("a", 0)
        store.set("a", 5)
        #expect(store.error("q") != nil)
        store.clock.advance(by: .milliseconds(100))
        store.fire()
        #expect(store.value("q") == 2)
        #expect(store.error("q") == nil)
    }
}
