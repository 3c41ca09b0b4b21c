@testable import PropdServer
import PropdCore
import Testing

@Suite struct PatternRelationsTests {
    func p(_ text: String) throws -> KeyPattern { try KeyPattern(text) }

    @Test(arguments: [
        ("**", "a", true), ("**", "a.*.b", true), ("**", "**", true),
        ("a.**", "a.b", true), ("a.**", "a.*.c", true), ("a.**", "a.**", true), ("a.**", "a", false),
        ("a.**", "b.**", false), ("a.*", "a.b", true), ("a.*", "a.*", true), ("a.*", "a.**", false),
        ("a.*", "a.b.c", false), ("a.b", "a.b", true), ("a.b", "a.*", false), ("*.b", "x.b", true),
        ("a.*.c", "a.**", false), ("a.b.**", "a.**", false),
    ])
    func covers(_ a: String, _ b: String, _ expected: Bool) throws {
        #expect(try p(a).covers(try p(b)) == expected, "\(a) covers \(b)")
    }

    @Test(arguments: [
        ("**", "a", true), ("a.**", "a", false), ("a.**", "*.b", true), ("a.*", "b.*", false),
        ("a.*", "*.c", true), ("a.*", "a.b.c", false), ("a.*.c", "a.**", true), ("room.*.temp", "room.*.humidity", false),
        ("x.y", "x.y", true), ("x.y", "x.z", false), ("*", "a.b", false), ("*.**", "a", false), ("*.**", "a.b", true),
    ])
    func overlaps(_ a: String, _ b: String, _ expected: Bool) throws {
        #expect(try p(a).overlaps(try p(b)) == expected, "\(a) overlaps \(b)")
        #expect(try p(b).overlaps(try p(a)) == expected, "symmetric: \(b) overlaps \(a)")
    }

    /// Checks the segment reasoning against brute force on a small key universe.
    @Test func agreesWithBruteForce() throws {
        let patterns = try ["**", "*", "a", "a.*", "a.**", "*.b", "a.b", "*.*", "*.**", "a.*.b", "a.b.**", "b.**"].map(p)
        var keys: [Key] = []
        for first in ["a", "b", "c"] {
            keys.append(try Key(first))
            for second in ["a", "b", "c"] {
                keys.append(try Key("\(first).\(second)"))
                for third in ["a", "b"] { keys.append(try Key("\(first).\(second).\(third)")) }
            }
        }
        for x in patterns {
            for y in patterns {
                let xs = Set(keys.filter { x.matches($0) })
                let ys = Set(keys.filter { y.matches($0) })
                #expect(x.overlaps(y) == !xs.isDisjoint(with: ys), "\(x) overlaps \(y)")
                // covers is exact, the universe finite: covering implies inclusion.
                if x.covers(y) { #expect(ys.isSubset(of: xs), "\(x) covers \(y)") }
            }
        }
    }
}
