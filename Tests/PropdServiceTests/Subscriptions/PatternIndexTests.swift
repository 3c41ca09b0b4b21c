import PropdCore
import PropertyBased
import Testing

@testable import PropdService

@Suite struct PatternIndexTests {
    private func index(_ patterns: [String]) -> PatternIndex<String> {
        var index = PatternIndex<String>()
        for p in patterns { index.insert(pattern(p), p) }
        return index
    }

    private func matching(_ index: PatternIndex<String>, _ k: String) -> [String] {
        index.matches(key(k)).sorted()
    }

    @Test func exactKeysMatchOnlyThemselves() {
        let index = index(["room.temp", "room"])
        #expect(matching(index, "room.temp") == ["room.temp"])
        #expect(matching(index, "room") == ["room"])
        #expect(matching(index, "room.hum").isEmpty)
        #expect(matching(index, "room.temp.x").isEmpty)
    }

    @Test func starMatchesExactlyOneSegment() {
        let index = index(["room.*", "*.temp", "a.*.c"])
        #expect(matching(index, "room.temp") == ["*.temp", "room.*"])
        #expect(matching(index, "room.a.b").isEmpty)
        #expect(matching(index, "room").isEmpty)
        #expect(matching(index, "a.b.c") == ["a.*.c"])
        #expect(matching(index, "a.b.c.d").isEmpty)
    }

    @Test func doubleStarMatchesOneOrMoreSegments() {
        let index = index(["room.**", "a.*.**"])
        #expect(matching(index, "room.temp") == ["room.**"])
        #expect(matching(index, "room.a.b") == ["room.**"])
        #expect(matching(index, "room").isEmpty)
        #expect(matching(index, "a.b").isEmpty)
        #expect(matching(index, "a.b.c.d") == ["a.*.**"])
    }

    @Test func doubleStarAloneMatchesEveryKey() {
        let index = index(["**"])
        for k in ["a", "a.b", "room.temp.x.y"] {
            #expect(matching(index, k) == ["**"])
        }
    }

    @Test func removeForgetsOnlyThatEntry() {
        var index = index(["room.*", "room.temp", "**"])
        index.insert(pattern("room.*"), "second")
        #expect(index.count == 4)
        let removals = [
            index.remove(pattern("room.*"), "room.*"),
            index.remove(pattern("room.*"), "room.*"),
            index.remove(pattern("room.temp"), "room.temp"),
        ]
        #expect(removals == [true, false, true])
        #expect(matching(index, "room.temp") == ["**", "second"])
        let more = [index.remove(pattern("**"), "**"), index.remove(pattern("room.*"), "second")]
        #expect(more == [true, true])
        #expect(index.isEmpty)
        #expect(matching(index, "room.temp").isEmpty)
    }

    /// Patterns over a tiny alphabet so that matches are frequent.
    static let patternGen = zip(Gen.element(of: ["a", "b", "*"]).array(of: 0...3), Gen.bool).map { segments, rest in
        let parts = segments.compactMap { $0 } + ((rest || segments.isEmpty) ? ["**"] : [])
        return parts.joined(separator: ".")
    }
    static let keyGen = Gen.element(of: ["a", "b", "c"]).array(of: 1...4).map { $0.compactMap { $0 }.joined(separator: ".") }

    @Test func agreesWithMatchingEveryPattern() async {
        await propertyCheck(
            count: 300, input: Self.patternGen.array(of: 0...12), Self.keyGen.array(of: 1...8), Gen.int(in: 0...3)
        ) { patternTexts, keyTexts, removeEvery in
            let patterns = patternTexts.map { pattern($0) }
            var index = PatternIndex<Int>()
            for (i, p) in patterns.enumerated() { index.insert(p, i) }
            var present = Set(patterns.indices)
            if removeEvery > 0 {
                for i in patterns.indices where i % (removeEvery + 1) == 0 {
                    let removed = index.remove(patterns[i], i)
                    #expect(removed)
                    present.remove(i)
                }
            }
            #expect(index.count == present.count)
            for k in keyTexts.map({ key($0) }) {
                let naive = present.filter { patterns[$0].matches(k) }.sorted()
                #expect(index.matches(k).sorted() == naive, "key \(k)")
            }
        }
    }
}
