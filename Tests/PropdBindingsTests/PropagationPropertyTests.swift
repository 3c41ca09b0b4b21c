import PropdTestSupport
import PropdBindings
import PropdCore
import PropertyBased
import Testing

/// Random DAGs of bindings and random change sequences, checked after every
/// change against an oracle that recomputes every derived key from scratch.
/// Time passes between changes (the injected clock); the oracle models
/// `delay` and `timeout` keys as the contract states them (each delayed value
/// in a firing of its own, a timeout once per silence) and recomputes the
/// rest from scratch after every write and every firing.
@Suite("Propagation against a from-scratch oracle")
struct PropagationPropertyTests {
    /// One derived key of a scenario: its expression for the engine and the
    /// same computation in plain Swift for the oracle.
    struct Derived {
        enum Rule {
            case plus(Int64)  // s + k
            case sumMod  // (x + y) % 1000
            case evenOnly  // filter s % 2 == 0
            case maxMinus  // max(a, b) - c
            case sixtyOver  // 60 / (s % 4): fails when s % 4 == 0
            case twiceMinus  // x * 2 - y
            case delayed(Int64)  // s.delay(N ms)
            case silence(Int64)  // s.timeout(N ms).catchTo(-1): -1 once s was silent N ms
        }

        var key: String
        var sources: [String]
        var rule: Rule

        var expression: String {
            switch rule {
            case .plus(let k): return "\(sources[0]).map { $0 + \(k) }"
            case .sumMod: return "combineLatest(\(sources[0]), \(sources[1])).map { x, y in (x + y) % 1000 }"
            case .evenOnly: return "\(sources[0]).filter { $0 % 2 == 0 }"
            case .maxMinus: return "combineLatest(\(sources.joined(separator: ", "))).map { a, b, c in max(a, b) - c }"
            case .sixtyOver: return "\(sources[0]).map { s in 60 / (s % 4) }"
            case .twiceMinus: return "combineLatest(\(sources[0]), \(sources[1])).map { $0 * 2 - $1 }"
            case .delayed(let ms): return "\(sources[0]).delay(\(ms)ms)"
            case .silence(let ms): return "\(sources[0]).timeout(\(ms)ms).catchTo(-1)"
            }
        }

        var isTimed: Bool {
            switch rule {
            case .delayed, .silence: return true
            default: return false
            }
        }

        /// The oracle: `nil` result means "keep the current value" (a filter
        /// rejecting it); an error string means an error state.
        func compute(_ inputs: [Int64]) -> Result<Int64?, OracleError> {
            switch rule {
            case .plus(let k): return .success(inputs[0] + k)
            case .sumMod: return .success((inputs[0] + inputs[1]) % 1000)
            case .evenOnly: return .success(inputs[0] % 2 == 0 ? inputs[0] : nil)
            case .maxMinus: return .success(max(inputs[0], inputs[1]) - inputs[2])
            case .sixtyOver: return inputs[0] % 4 == 0 ? .failure(OracleError()) : .success(60 / (inputs[0] % 4))
            case .twiceMinus: return .success(inputs[0] * 2 - inputs[1])
            case .delayed, .silence: return .success(nil)
            }
        }
    }

    /// The oracle's model of the time keys: each delay's queue and each
    /// timeout's deadline. Deletions are not values: neither counts them.
    struct TimeOracle {
        var queues: [String: [(due: Int64, value: Int64)]] = [:]
        var deadlines: [String: Int64] = [:]

        /// Bind (the base's current value is its first value) or a write to `base`.
        mutating func received(_ value: Int64?, from base: String, at now: Int64, _ derived: [Derived],
            values: inout [String: Int64])
        {
            for d in derived where d.sources == [base] {
                switch d.rule {
                case .delayed(let ms):
                    if let value { queues[d.key, default: []].append((now + ms, value)) }
                case .silence(let ms):
                    deadlines[d.key] = now + ms
                    if let value { values[d.key] = value }
                default:
                    break
                }
            }
        }

        /// One firing at `now`: each due delay emits its oldest value, each due timeout -1.
        mutating func fire(at now: Int64, values: inout [String: Int64]) {
            for (key, queue) in queues {
                guard let first = queue.first, first.due <= now else { continue }
                values[key] = first.value
                queues[key] = Array(queue.dropFirst())
            }
            for (key, deadline) in deadlines where deadline <= now {
                values[key] = -1
                deadlines[key] = nil
            }
        }
    }

    struct OracleError: Error {}

    static let bases = ["b.0", "b.1", "b.2", "b.3"]

    static func scenario(_ rng: inout SplitMix) -> [Derived] {
        let count = Int.random(in: 3...14, using: &rng)
        var derived: [Derived] = []
        for i in 0..<count {
            let available = bases + derived.map(\.key)
            func pick() -> String { available.randomElement(using: &rng) ?? "b.0" }
            if Int.random(in: 0..<5, using: &rng) == 0 {
                // Time operators read base keys, whose write times the oracle knows.
                let ms = Int64.random(in: 1...6, using: &rng) * 50
                let rule: Derived.Rule = Bool.random(using: &rng) ? .delayed(ms) : .silence(ms)
                derived.append(Derived(key: "d.\(i)", sources: [bases.randomElement(using: &rng) ?? "b.0"], rule: rule))
                continue
            }
            let rule: Derived.Rule
            let arity: Int
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: (rule, arity) = (.plus(Int64.random(in: -3...3, using: &rng)), 1)
            case 1: (rule, arity) = (.sumMod, 2)
            case 2: (rule, arity) = (.evenOnly, 1)
            case 3: (rule, arity) = (.maxMinus, 3)
            case 4: (rule, arity) = (.sixtyOver, 1)
            default: (rule, arity) = (.twiceMinus, 2)
            }
            derived.append(Derived(key: "d.\(i)", sources: (0..<arity).map { _ in pick() }, rule: rule))
        }
        return derived
    }

    /// Recomputes every derived key in declaration (topological) order.
    static func oracle(_ derived: [Derived], values: inout [String: Int64], errors: inout Set<String>) {
        for d in derived where !d.isTimed {
            let inputs = d.sources.compactMap { values[$0] }
            guard inputs.count == d.sources.count else { continue }
            switch d.compute(inputs) {
            case .success(let value?):
                values[d.key] = value
                errors.remove(d.key)
            case .success(nil):
                break
            case .failure:
                errors.insert(d.key)
            }
        }
    }

    @Test("random DAGs and change sequences match the oracle, each key changing at most once per revision")
    func randomDAGs() async {
        await propertyCheck(count: 120, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed: seed)
            let derived = Self.scenario(&rng)
            var store = Store()
            var oracleValues: [String: Int64] = [:]
            var oracleErrors: Set<String> = []
            var time = TimeOracle()
            var now: Int64 { store.clock.now().milliseconds }
            for base in Self.bases where Bool.random(using: &rng) {
                let value = Int64.random(in: -5...20, using: &rng)
                store.set(base, .integer(value))
                oracleValues[base] = value
            }
            for d in derived {
                do { try store.bind(d.key, d.expression) } catch {
                    Issue.record("\(d.expression): \(error)")
                    return
                }
            }
            for base in Self.bases { time.received(oracleValues[base], from: base, at: now, derived, values: &oracleValues) }
            Self.oracle(derived, values: &oracleValues, errors: &oracleErrors)
            compare(store, derived, oracleValues, oracleErrors, step: 0)

            for step in 1...25 {
                if Int.random(in: 0..<10, using: &rng) == 0 { store = restart(store) }
                // Time passes; every timer that fell due fires (one revision per firing).
                store.clock.advance(by: .milliseconds(Int.random(in: 0...250, using: &rng)))
                while let due = store.engine.nextDeadline, due <= store.clock.now() {
                    let fired = store.fire()
                    let keys = fired.changes.map(\.key)
                    #expect(Set(keys).count == keys.count, "a key changed twice in one firing (seed \(seed))")
                    time.fire(at: now, values: &oracleValues)
                    Self.oracle(derived, values: &oracleValues, errors: &oracleErrors)
                }
                compare(store, derived, oracleValues, oracleErrors, step: step)
                var changes: [Change] = []
                for base in Self.bases.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)) {
                    if Int.random(in: 0..<7, using: &rng) == 0 {
                        changes.append(.delete(Store.key(base)))
                        oracleValues[base] = nil
                    } else {
                        let value = Int64.random(in: -5...20, using: &rng)
                        changes.append(.set(Store.key(base), .integer(value)))
                        oracleValues[base] = value
                        time.received(value, from: base, at: now, derived, values: &oracleValues)
                    }
                }
                let propagation = store.write(changes)
                Self.oracle(derived, values: &oracleValues, errors: &oracleErrors)
                let keys = propagation.changes.map(\.key)
                #expect(Set(keys).count == keys.count, "a derived key changed twice in one revision (seed \(seed))")
                let heights = keys.map { store.engine.height(of: $0) }
                #expect(heights == heights.sorted(), "changes out of height order (seed \(seed))")
                compare(store, derived, oracleValues, oracleErrors, step: step)
            }
        }
    }

    private func restart(_ store: Store) -> Store {
        let next = Store()
        next.clock.set(store.clock.now())
        next.values = store.values
        next.errors = store.errors
        next.states = store.states
        let saved = store.engine.bindings.map {
            RestoredBinding(key: $0.key, expression: $0.expression, state: store.states[$0.key])
        }
        #expect(next.engine.restore(saved).isEmpty)
        return next
    }

    private func compare(_ store: Store, _ derived: [Derived], _ values: [String: Int64], _ errors: Set<String>,
        step: Int)
    {
        for d in derived {
            let expected = values[d.key].map { JSONValue.integer($0) }
            #expect(store.value(d.key) == expected, "\(d.key) = \(d.expression) at step \(step)")
            #expect((store.error(d.key) != nil) == errors.contains(d.key), "error state of \(d.key) at step \(step)")
        }
    }
}
