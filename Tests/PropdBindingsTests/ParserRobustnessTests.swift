import PropdTestSupport
import PropdBindings
import PropdCore
import Testing

/// Random and mutated inputs must give a binding or a clear error: never a
/// crash, never a hang (every test here is bounded by iterations, not time).
@Suite("Parser robustness")
struct ParserRobustnessTests {
    static let seeds = [
        "combineLatest(form.account, form.password).map { a, p in len(a) > 5 && len(p) > 5 }",
        "room.temp.map { $0 * 9 / 5 + 32 }",
        "sensor.level.filter { $0 >= 0 }.distinctUntilChanged()",
        "merge(button.a, button.b)",
        "button.a.scan(0) { count, _ in count + 1 }",
        "search.text.throttle(300ms)",
        "combineLatest(disk.used, disk.size).map { u, s in u / s }.catchTo(0)",
        #"settings.profile.flatMap { p in key("profiles." + p + ".volume") }"#,
        #"a.map { x in {"k": [x, x.y ?? null, x[0], -x, !true, x ? "s\n\u00e9" : 2.5e3] } }.startWith([1, {"a": 2}])"#,
        "a.skip(2).take(3).map { round(abs(min($0, 3, max(1, 2))), 2) }",
    ]

    static let fragments = [
        "(", ")", "{", "}", "[", "]", ",", ".", ":", "?", "??", "+", "-", "*", "/", "%", "!", "==", "!=", "<", "<=",
        ">", ">=", "&&", "||", "=", " ", "\n", "#", "\"", "\\", "$", "$0", "$9999", "1", "1.5", "1e999", "300ms", "2m",
        "a", "a.b", "map", "filter", "in", "x", "combineLatest", "merge", "key", "len", "true", "null", "é", "🙂",
        "\u{0}", "'", "&", "|", "_", "-x-", "9" + String(repeating: "9", count: 30),
    ]

    private func exercise(_ text: String) {
        let engine = BindingEngine(clock: ManualBindingClock())
        do {
            try engine.validate(key: Store.key("t"), expression: text)
            // Valid: it must also declare and evaluate on odd values without trapping.
            let odd: [JSONValue] = [.null, 0, -1, 2.5, "", "x", [], [1, "a"], ["k": .null], true]
            var index = 0
            _ = try engine.declare(key: Store.key("t"), expression: text) { _ in
                index += 1
                return odd[index % odd.count]
            }
            for value in odd {
                let changes = engine.propagate([.set(Store.key("a"), value), .set(Store.key("x"), value)]) { _ in value }
                _ = changes
            }
        } catch {
            switch error {
            case .invalid(let message, let line, let column):
                #expect(!message.isEmpty && line >= 1 && column >= 1, "\(text.debugDescription)")
            case .cycle(let keys):
                #expect(!keys.isEmpty)
            }
        }
    }

    @Test("random token soup never crashes")
    func randomInputs() {
        var rng = SplitMix(seed: 0x5EED)
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...40, using: &rng)
            let text = (0..<count).map { _ in Self.fragments.randomElement(using: &rng) ?? "" }.joined()
            exercise(text)
        }
    }

    @Test("mutated valid bindings never crash")
    func mutatedInputs() {
        var rng = SplitMix(seed: 0xF00D)
        for _ in 0..<4_000 {
            var characters = Array(Self.seeds.randomElement(using: &rng) ?? "")
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let position = characters.isEmpty ? 0 : Int.random(in: 0..<characters.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where !characters.isEmpty: characters.remove(at: position)
                case 1: characters.insert(contentsOf: Self.fragments.randomElement(using: &rng) ?? "", at: position)
                default:
                    if !characters.isEmpty {
                        characters[position] = (Self.fragments.randomElement(using: &rng) ?? "x").first ?? "x"
                    }
                }
            }
            exercise(String(characters))
        }
    }

    @Test("every prefix of a valid binding gives a binding or an error")
    func prefixes() {
        for seed in Self.seeds {
            let characters = Array(seed)
            for end in 0...characters.count { exercise(String(characters[..<end])) }
        }
    }

    @Test("a long flat expression within the size limit parses")
    func longFlatExpression() throws {
        let wide = "merge(" + Array(repeating: "a", count: 5_000).joined(separator: ", ") + ")"
        #expect(invalid(wide) == nil)
        let sum = "a.map { x in " + Array(repeating: "x", count: 60).joined(separator: " + ") + " }"
        #expect(invalid(sum) == nil)
    }
}
