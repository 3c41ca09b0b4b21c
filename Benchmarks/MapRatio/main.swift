import PropdBindings
import PropdCore

// BENCHMARKS.md's "Simple map evaluation (propagate one change)": one source
// change through one `map` binding per `propagate` call. Prints the median of
// ROUNDS rounds of N calls, in ns per call and evaluations/s.
@inline(never) func consume(_ p: Propagation) { if p.changes.count == 42 { print("") } }

let arguments = CommandLine.arguments
let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 7 : 7
let n = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
guard let source = try? Key("room.temp"), let target = try? Key("room.f") else { fatalError() }
let engine = BindingEngine(clock: ManualBindingClock())
_ = try engine.declare(key: target, expression: "room.temp.map { $0 * 9 / 5 + 32 }") { _ in nil }
var value: Int64 = 0
var perCall: [Double] = []
let clock = ContinuousClock()
for _ in 0..<rounds {
    let start = clock.now
    for _ in 0..<n {
        value &+= 1
        consume(engine.propagate([.set(source, .integer(value))]) { _ in nil })
    }
    let elapsed = start.duration(to: clock.now)
    let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    perCall.append(ns / Double(n))
}
perCall.sort()
let median = perCall[perCall.count / 2]
print("median \(median) ns/call, \(Int(1e9 / median)) evaluations/s; rounds \(perCall.map { Int($0) })")
