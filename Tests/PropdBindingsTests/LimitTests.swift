import PropdBindings
import PropdCore
import Testing

@Suite("Derived values have limits: size, work, recomputations per revision")
struct LimitTests {
    /// A store whose engine allows values of `bytes` and `steps` of work.
    private func store(bytes: Int = 64 * 1024, steps: Int = 1 << 20, recomputations: Int = 100_000) -> Store {
        let store = Store()
        store.engine.limits = BindingLimits(
            maxValueBytes: bytes, maxEvaluationSteps: steps, maxRecomputationsPerRevision: recomputations)
        return store
    }

    @Test("a chain doubling a string stops at the value limit with 'value too large', storing nothing big")
    func doublingChain() throws {
        let store = store()
        try store.bind("k1", "k0.map { $0 + $0 }")
        for i in 2...34 { try store.bind("k\(i)", "k\(i - 1).map { $0 + $0 }") }
        store.set("k0", "x")
        // 2^16 = 65,536 characters is over the 64 KiB limit (with its quotes).
        #expect(store.value("k15").map { if case .string(let s) = $0 { s.count } else { 0 } } == 32768)
        #expect(store.value("k16") == nil)
        #expect(store.error("k16")?.hasPrefix("value too large") == true)
        for i in 17...34 { #expect(store.value("k\(i)") == nil) }
    }

    @Test("a chain doubling an array by nesting stops at the value limit although it shares its parts")
    func nestedDoubling() throws {
        let store = store()
        try store.bind("k1", "k0.map { [$0, $0] }")
        for i in 2...40 { try store.bind("k\(i)", "k\(i - 1).map { [$0, $0] }") }
        store.set("k0", "abcdefgh")
        let refused = (1...40).first { store.error("k\($0)") != nil }
        #expect(refused != nil)
        if let refused { #expect(store.error("k\(refused)")?.hasPrefix("value too large") == true) }
    }

    @Test("a growing scan keeps its last accumulator within the limit and reports 'value too large'")
    func growingScan() throws {
        let store = store()
        try store.bind("acc", #"x.scan("") { a, v in a + v }"#)
        let chunk = JSONValue.string(String(repeating: "y", count: 10_000))
        for _ in 1...28 { store.set("x", chunk) }
        #expect(store.error("acc")?.hasPrefix("value too large") == true)
        guard case .string(let kept)? = store.value("acc") else {
            Issue.record("acc has no value")
            return
        }
        #expect(kept.utf8.count <= 64 * 1024)
        // The persisted accumulator is the kept value, not the refused one.
        let persisted = store.states[Store.key("acc")]?.jsonString.utf8.count ?? 0
        #expect(persisted > kept.utf8.count && persisted < kept.utf8.count + 256)
    }

    @Test("a throttled oversized value is refused before it is held as pending state")
    func throttleHoldsNothingBig() throws {
        let store = store()
        try store.bind("t", "k.map { $0 + $0 }.throttle(1s)")
        store.set("k", .string(String(repeating: "z", count: 40_000)))
        #expect(store.error("t")?.hasPrefix("value too large") == true)
        #expect(store.states[Store.key("t")]?.jsonString.utf8.count ?? 0 < 1024)
        #expect(store.engine.nextDeadline == nil)
    }

    @Test("combineLatest of large sources is refused when the list it holds passes the limit")
    func combineLatestSum() throws {
        let store = store()
        try store.bind("both", "combineLatest(a, b, c)")
        let big = JSONValue.string(String(repeating: "q", count: 30_000))
        store.set("a", big)
        store.set("b", big)
        store.set("c", big)
        #expect(store.error("both")?.hasPrefix("value too large") == true)
        #expect((store.states[Store.key("both")]?.jsonString.utf8.count ?? 0) < 64 * 1024)
    }

    @Test("work beyond the step budget is 'evaluation too long'")
    func stepBudget() throws {
        let store = store(bytes: 1 << 20, steps: 100_000)
        let reads = Array(repeating: "len(string($0))", count: 40).joined(separator: " + ")
        try store.bind("busy", "k.map { \(reads) }")
        store.set("k", .string(String(repeating: "w", count: 10_000)))
        #expect(store.error("busy")?.hasPrefix("evaluation too long") == true)
        store.set("k", "short")
        #expect(store.error("busy") == nil)
        #expect(store.value("busy") == .integer(5 * 40))
    }

    @Test("a propagation beyond the recomputation bound is marked overflowed and counted")
    func recomputationBound() throws {
        let store = store(recomputations: 50)
        for i in 0..<100 { try store.bind("fan.\(i)", "src.map { $0 + \(i) }") }
        let small = store.engine.propagate([.set(Store.key("other"), 1)]) { _ in nil }
        #expect(!small.overflowed)
        let propagation = store.engine.propagate([.set(Store.key("src"), 1)]) { _ in nil }
        #expect(propagation.overflowed)
        #expect(propagation.recomputations == 50)
        #expect(store.engine.largestRecomputation == 50)
    }
}
