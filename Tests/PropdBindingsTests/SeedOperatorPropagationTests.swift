import PropdTestSupport
import PropdBindings
import PropdCore
import PropertyBased
import Testing

/// Random DAGs that mix takeUntil, takeWhile, skipWhile and ignore with map,
/// combineLatest and filter, under random change sequences and restarts,
/// checked after every revision against a stateful oracle: a model that
/// knows which keys changed in the revision and what each latch holds.
@Suite("Propagation of the latching operators against a stateful oracle")
struct SeedOperatorPropagationTests {
    struct Derived {
        enum Rule {
            case plus(Int64)  // s + k
            case sumMod  // (x + y) % 1000
            case evenOnly  // filter s % 2 == 0
            case until  // s.takeUntil(n)
            case twiceUntil  // s.map { $0 * 2 }.takeUntil(n)
            case sumUntil  // combineLatest(x, y).map { (x + y) % 1000 }.takeUntil(n)
            case takeWhileBelow(Int64)  // s.takeWhile { $0 < k }
            case skipWhileBelow(Int64)  // s.skipWhile { $0 < k }
            case ignoring(Int64)  // s.ignore(k)
        }

        var key: String
        /// Every key the expression names; with a takeUntil, the last is its KEY.
        var sources: [String]
        var rule: Rule

        var expression: String {
            let s = sources
            switch rule {
            case .plus(let k): return "\(s[0]).map { $0 + \(k) }"
            case .sumMod: return "combineLatest(\(s[0]), \(s[1])).map { x, y in (x + y) % 1000 }"
            case .evenOnly: return "\(s[0]).filter { $0 % 2 == 0 }"
            case .until: return "\(s[0]).takeUntil(\(s[1]))"
            case .twiceUntil: return "\(s[0]).map { $0 * 2 }.takeUntil(\(s[1]))"
            case .sumUntil:
                return "combineLatest(\(s[0]), \(s[1])).map { x, y in (x + y) % 1000 }.takeUntil(\(s[2]))"
            case .takeWhileBelow(let k): return "\(s[0]).takeWhile { $0 < \(k) }"
            case .skipWhileBelow(let k): return "\(s[0]).skipWhile { $0 < \(k) }"
            case .ignoring(let k): return "\(s[0]).ignore(\(k))"
            }
        }

        /// The sources whose values the rule reads (all but takeUntil's KEY).
        var valueSources: [String] {
            switch rule {
            case .until, .twiceUntil, .sumUntil: return Array(sources.dropLast())
            default: return sources
            }
        }

        var stopKey: String? {
            switch rule {
            case .until, .twiceUntil, .sumUntil: return sources.last
            default: return nil
            }
        }
    }

    /// What the oracle knows: committed values, and each latch that has
    /// closed (takeUntil, takeWhile) or opened (skipWhile).
    struct Model {
        var values: [String: Int64] = [:]
        var latched: Set<String> = []

        /// Applies one revision: `changed` holds the keys the write set or
        /// deleted; derived keys that emit join it, in declaration order.
        mutating func revision(_ derived: [Derived], changed: Set<String>, subscribing: Bool) {
            var changed = changed
            for d in derived {
                let stopped = d.stopKey.map { changed.contains($0) } ?? false
                guard subscribing || stopped || d.valueSources.contains(where: changed.contains) else { continue }
                if let emitted = evaluate(d, stopped: stopped && !subscribing, changed: changed,
                    subscribing: subscribing)
                {
                    values[d.key] = emitted
                    changed.insert(d.key)
                }
            }
        }

        private mutating func evaluate(_ d: Derived, stopped: Bool, changed: Set<String>, subscribing: Bool)
            -> Int64?
        {
            if d.stopKey != nil {
                if latched.contains(d.key) { return nil }
                if stopped {
                    latched.insert(d.key)
                    return nil
                }
            }
            let inputs = d.valueSources.compactMap { values[$0] }
            guard inputs.count == d.valueSources.count else { return nil }
            // A source deleted in this revision emits nothing; one set emits.
            guard subscribing || d.valueSources.contains(where: { changed.contains($0) && values[$0] != nil })
            else { return nil }
            let v = inputs[0]
            switch d.rule {
            case .plus(let k): return v + k
            case .sumMod, .sumUntil: return (inputs[0] + inputs[1]) % 1000
            case .evenOnly: return v % 2 == 0 ? v : nil
            case .until: return v
            case .twiceUntil: return v * 2
            case .takeWhileBelow(let k):
                if latched.contains(d.key) { return nil }
                if v < k { return v }
                latched.insert(d.key)
                return nil
            case .skipWhileBelow(let k):
                if latched.contains(d.key) { return v }
                if v < k { return nil }
                latched.insert(d.key)
                return v
            case .ignoring(let k): return v == k ? nil : v
            }
        }
    }

    static let bases = ["b.0", "b.1", "b.2", "b.3"]

    static func scenario(_ rng: inout SplitMix) -> [Derived] {
        let count = Int.random(in: 3...12, using: &rng)
        var derived: [Derived] = []
        for i in 0..<count {
            let available = bases + derived.map(\.key)
            func pick() -> String { available.randomElement(using: &rng) ?? "b.0" }
            let k = Int64.random(in: -2...15, using: &rng)
            let rule: Derived.Rule
            let arity: Int
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: (rule, arity) = (.plus(Int64.random(in: -3...3, using: &rng)), 1)
            case 1: (rule, arity) = (.sumMod, 2)
            case 2: (rule, arity) = (.evenOnly, 1)
            case 3: (rule, arity) = (.until, 2)
            case 4: (rule, arity) = (.twiceUntil, 2)
            case 5: (rule, arity) = (.sumUntil, 3)
            case 6: (rule, arity) = (.takeWhileBelow(k), 1)
            case 7: (rule, arity) = (.skipWhileBelow(k), 1)
            default: (rule, arity) = (.ignoring(Int64.random(in: -2...8, using: &rng)), 1)
            }
            derived.append(Derived(key: "d.\(i)", sources: (0..<arity).map { _ in pick() }, rule: rule))
        }
        return derived
    }

    @Test("random DAGs with takeUntil, takeWhile, skipWhile and ignore match the oracle, across restarts")
    func randomDAGs() async {
        await propertyCheck(count: 150, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed: seed)
            let derived = Self.scenario(&rng)
            var store = Store()
            var model = Model()
            for base in Self.bases where Bool.random(using: &rng) {
                let value = Int64.random(in: -5...20, using: &rng)
                store.set(base, .integer(value))
                model.values[base] = value
            }
            for d in derived {
                do { try store.bind(d.key, d.expression) } catch {
                    Issue.record("\(d.expression): \(error)")
                    return
                }
            }
            model.revision(derived, changed: [], subscribing: true)
            compare(store, derived, model, step: 0, seed: seed)

            for step in 1...30 {
                if Int.random(in: 0..<8, using: &rng) == 0 { store = store.restarted() }
                var changes: [Change] = []
                var changed: Set<String> = []
                for base in Self.bases.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)) {
                    changed.insert(base)
                    if Int.random(in: 0..<7, using: &rng) == 0 {
                        changes.append(.delete(Store.key(base)))
                        model.values[base] = nil
                    } else {
                        let value = Int64.random(in: -5...20, using: &rng)
                        changes.append(.set(Store.key(base), .integer(value)))
                        model.values[base] = value
                    }
                }
                let propagation = store.write(changes)
                model.revision(derived, changed: changed, subscribing: false)
                let keys = propagation.changes.map(\.key)
                #expect(Set(keys).count == keys.count, "a derived key changed twice in one revision (seed \(seed))")
                compare(store, derived, model, step: step, seed: seed)
            }
        }
    }

    private func compare(_ store: Store, _ derived: [Derived], _ model: Model, step: Int, seed: UInt64) {
        for d in derived {
            let expected = model.values[d.key].map { JSONValue.integer($0) }
            #expect(store.value(d.key) == expected, "\(d.key) = \(d.expression) at step \(step) (seed \(seed))")
            #expect(store.error(d.key) == nil, "\(d.key) = \(d.expression) at step \(step) (seed \(seed))")
        }
    }
}
