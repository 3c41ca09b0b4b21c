import PropdTestSupport
import PropdBindings
import PropertyBased
import Testing

/// The daemon's one ordered set of deadlines against a model (a plain
/// dictionary): random arm / replace / cancel / fire / restart sequences.
@Suite("Deadline schedule against a model")
struct DeadlineSchedulePropertyTests {
    @Test("every due deadline fires once, none early, none lost; earliest is exact")
    func matchesModel() async {
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed: seed)
            var schedule = DeadlineSchedule<Int>()
            var model: [Int: Int64] = [:]
            var now: Int64 = 1_000
            let owners = Int.random(in: 1...40, using: &rng)
            for step in 0..<300 {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0...3:  // arm or replace
                    let owner = Int.random(in: 0..<owners, using: &rng)
                    let deadline = now + Int64.random(in: 0...500, using: &rng)
                    let previous = schedule.set(owner, at: deadline)
                    #expect(previous == model[owner])
                    model[owner] = deadline
                case 4:  // cancel
                    let owner = Int.random(in: 0..<owners, using: &rng)
                    let previous = schedule.set(owner, at: nil)
                    #expect(previous == model[owner])
                    model[owner] = nil
                case 5:  // restart: rebuilt from what was persisted
                    var rebuilt = DeadlineSchedule<Int>()
                    for (owner, deadline) in model { rebuilt.set(owner, at: deadline) }
                    schedule = rebuilt
                default:  // time passes and due deadlines fire
                    now += Int64.random(in: 0...200, using: &rng)
                    let fired = schedule.removeDue(atOrBefore: now)
                    let due = model.filter { $0.value <= now }
                    #expect(fired.count == Set(fired).count, "an owner fired twice (seed \(seed), step \(step))")
                    #expect(Set(fired) == Set(due.keys), "fired \(fired), due \(due) (seed \(seed), step \(step))")
                    let order = fired.compactMap { due[$0] }
                    #expect(order == order.sorted(), "earliest first (seed \(seed))")
                    for owner in due.keys { model[owner] = nil }
                }
                #expect(schedule.count == model.count)
                #expect(schedule.earliest == model.values.min(), "earliest (seed \(seed), step \(step))")
                for (owner, deadline) in model { #expect(schedule.deadline(of: owner) == deadline) }
            }
        }
    }

    @Test("heartbeats replacing deadlines keep the heap within twice the live deadlines")
    func heartbeatsStayBounded() {
        var schedule = DeadlineSchedule<Int>()
        for round in 0..<50 {
            for owner in 0..<1_000 { schedule.set(owner, at: Int64(10_000 + round * 10 + owner % 7)) }
        }
        #expect(schedule.count == 1_000)
        #expect(schedule.earliest == 10_490)
        let fired = schedule.removeDue(atOrBefore: 10_496)
        #expect(fired.count == 1_000)
        #expect(schedule.isEmpty)
    }
}
