import PropdBindings
import PropdCore
import Testing

@Suite("The dependency graph: glitch-free, acyclic, proportional")
struct GraphTests {
    @Test("diamond a→b, a→c, d=combineLatest(b,c): one consistent value of d per change of a")
    func diamond() throws {
        let store = Store()
        store.set("a", 1)
        try store.bind("b", "a.map { $0 + 1 }")
        try store.bind("c", "a.map { $0 * 10 }.map { $0 }.map { $0 }")  // a longer path
        try store.bind("d", "combineLatest(b, c).map { x, y in [x, y] }")
        #expect(store.value("d") == [2, 10])
        for n in 2...20 {
            let propagation = store.set("a", .integer(Int64(n)))
            let dChanges = propagation.changes.filter { $0.key == Store.key("d") }
            #expect(dChanges == [.set(Store.key("d"), [.integer(Int64(n + 1)), .integer(Int64(n * 10))])])
            #expect(Set(propagation.changes.map(\.key)).count == propagation.changes.count)
        }
        // Never a mix of old b and new c.
        for value in store.history("d") {
            guard case .array(let pair) = value, let b = pair[0].doubleValue, let c = pair[1].doubleValue else {
                Issue.record("unexpected \(value)")
                continue
            }
            #expect(c == (b - 1) * 10)
        }
    }

    @Test("derived changes come in height order and feed further bindings in the same call")
    func heightOrder() throws {
        let store = Store()
        try store.bind("c", "b.map { $0 + 1 }")
        try store.bind("b", "a.map { $0 + 1 }")
        try store.bind("e", "combineLatest(a, c).map { x, y in x + y }")
        let propagation = store.set("a", 1)
        #expect(propagation.changes.map(\.key.rawValue) == ["b", "c", "e"])
        #expect(store.value("e") == 4)
        #expect(store.engine.height(of: Store.key("e")) == 3)
    }

    @Test("a chain of 1,000 derived keys settles in one call")
    func chain() throws {
        let store = Store()
        try store.bind("k0", "src.map { $0 + 1 }")
        for i in 1..<1000 { try store.bind("k\(i)", "k\(i - 1).map { $0 + 1 }") }
        let propagation = store.set("src", 0)
        #expect(propagation.changes.count == 1000)
        #expect(store.value("k999") == 1000)
    }

    @Test("unrelated bindings are not evaluated")
    func unrelatedUntouched() throws {
        let store = Store()
        for i in 0..<200 { try store.bind("other.\(i)", "in.\(i).scan(0) { n, _ in n + 1 }") }
        try store.bind("mine", "x.map { $0 }")
        let propagation = store.set("x", 1)
        #expect(propagation.changes == [.set(Store.key("mine"), 1)])
        #expect(propagation.states.isEmpty)
    }

    @Test("a binding that would close a cycle is refused with the cycle's keys, and nothing changes")
    func cycles() throws {
        let store = Store()
        try store.bind("a", "b.map { $0 }")
        try store.bind("b", "c.map { $0 }")
        #expect(throws: BindingError.cycle(["c", "a", "b"])) { try store.bind("c", "combineLatest(x, a)") }
        #expect(throws: BindingError.cycle(["s"])) { try store.bind("s", "s.map { $0 }") }
        #expect(throws: BindingError.cycle(["b", "a"])) { try store.engine.validate(key: Store.key("b"), expression: "a") }
        #expect(!store.engine.isDerived(Store.key("c")))
        #expect(!store.engine.isDerived(Store.key("s")))
        #expect(store.engine.binding(of: Store.key("b"))?.sources == [Store.key("c")])
        #expect(store.engine.count == 2)
        let error = BindingError.cycle(["c", "a", "b"])
        #expect(error.description == "binding would close a cycle: c -> a -> b -> c")
    }

    @Test("a flatMap edge counts when a new binding is checked for cycles")
    func dynamicEdgeCycle() throws {
        let store = Store()
        store.set([("sel", "t"), ("t", 1)])
        try store.bind("f", #"sel.flatMap { key($0) }"#)
        #expect(throws: BindingError.cycle(["t", "f"])) { try store.bind("t", "f.map { $0 }") }
    }

    @Test("Bind evaluates at once when its sources have values, and propagates downstream")
    func bindEvaluatesAtOnce() throws {
        let store = Store()
        store.set("a", 2)
        try store.bind("c", "b.map { $0 * 10 }")
        let bound = try store.bind("b", "a.map { $0 + 1 }")
        #expect(bound.changes == [.set(Store.key("b"), 3), .set(Store.key("c"), 30)])
    }

    @Test("invalid bindings change nothing")
    func invalidChangesNothing() throws {
        let store = Store()
        try store.bind("x", "a.map { $0 + 1 }")
        #expect(throws: BindingError.self) { try store.bind("x", "a.map {") }
        #expect(store.engine.binding(of: Store.key("x"))?.expression == "a.map { $0 + 1 }")
        store.set("a", 1)
        #expect(store.value("x") == 2)
    }

    @Test("replacing a binding starts fresh and drops old sources")
    func replace() throws {
        let store = Store()
        try store.bind("x", "a.scan(0) { n, _ in n + 1 }")
        store.set("a", 1)
        store.set("b", 5)
        let replaced = try store.bind("x", "b.map { $0 * 2 }")
        #expect(replaced.changes == [.set(Store.key("x"), 10)])
        #expect(store.set("a", 2).changes.isEmpty)
        #expect(store.engine.binding(of: Store.key("x"))?.sources == [Store.key("b")])
    }

    @Test("Unbind freezes the last value; readers keep reading the now plain key")
    func unbind() throws {
        let store = Store()
        try store.bind("b", "a.map { $0 + 1 }")
        try store.bind("c", "b.map { $0 * 2 }")
        store.set("a", 1)
        #expect(store.engine.remove(key: Store.key("b")))
        #expect(!store.engine.remove(key: Store.key("b")))
        #expect(!store.engine.isDerived(Store.key("b")))
        #expect(store.set("a", 5).changes.isEmpty)
        #expect(store.value("b") == 2)
        store.set("b", 10)
        #expect(store.value("c") == 20)
    }

    @Test("bindings are listed sorted by key; the graph prints as DOT")
    func inspection() throws {
        let store = Store()
        try store.bind("z", "combineLatest(a, b).map { $0 + $1 }.distinctUntilChanged()")
        try store.bind("m", "a.throttle(300ms)")
        #expect(store.engine.bindings.map(\.key.rawValue) == ["m", "z"])
        let z = try #require(store.engine.binding(of: Store.key("z")))
        #expect(z.sources.map(\.rawValue) == ["a", "b"])
        #expect(z.operators == ["map", "distinctUntilChanged"])
        let dot = store.engine.dot()
        #expect(dot.contains(#""a" -> "z" [label="map → distinctUntilChanged"];"#))
        #expect(dot.contains(#""a" -> "m" [label="throttle(300ms)"];"#))
        #expect(store.engine.edges(matching: try KeyPattern("m")).count == 1)
    }
}
