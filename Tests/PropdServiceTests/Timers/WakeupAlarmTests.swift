import PropdTestSupport
import PropdBindings
import PropdCore
import PropertyBased
@testable import PropdService
import Testing

/// The daemon's one timer, decision by decision, with the injected clock:
/// the engine's real schedule (throttle, delay, timeout, expiring keys)
/// driven through every interleaving of arm, replace, cancel and wake-ups
/// that come early, on time or stale.
@Suite("The timer wake-up against the engine's deadlines")
struct WakeupAlarmTests {
    private static func key(_ text: String) -> Key {
        guard let key = try? Key(text) else { fatalError("bad test key \(text)") }
        return key
    }

    @Test("a later deadline replacing an earlier one is not dropped (the throttle of issue 11)")
    func replacedDeadline() {
        var alarm = WakeupAlarm()
        #expect(alarm.arm(1_300) == .start(deadline: 1_300, generation: 1))
        // The value is replaced: the engine's deadline moves to 1_400; the
        // pending wake-up at 1_300 stays (it is earlier).
        #expect(alarm.arm(1_400) == .keep)
        // It goes off with nothing due; arming again for 1_400 is what the old timer forgot.
        let current = alarm.wentOff(1)
        #expect(current)
        #expect(alarm.arm(1_400) == .start(deadline: 1_400, generation: 2))
    }

    @Test("an earlier deadline replaces the pending wake-up; the stale one is ignored when it goes off")
    func earlierReplaces() {
        var alarm = WakeupAlarm()
        #expect(alarm.arm(2_000) == .start(deadline: 2_000, generation: 1))
        #expect(alarm.arm(1_500) == .start(deadline: 1_500, generation: 2))
        let stale = alarm.wentOff(1)
        #expect(!stale)
        #expect(alarm.armed == 1_500)
        let pending = alarm.wentOff(2)
        #expect(pending)
        #expect(alarm.armed == nil)
        #expect(alarm.arm(nil) == .keep)
    }

    @Test("random writes and wake-ups against the engine: no deadline is ever left without a wake-up")
    func randomInterleavings() async {
        await propertyCheck(count: 150, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed: seed)
            let clock = ManualBindingClock(at: BindingInstant(milliseconds: 1_000_000))
            let engine = BindingEngine(clock: clock)
            var values: [Key: JSONValue] = [:]
            let lookup: BindingEngine.Lookup = { values[$0] }
            do {
                _ = try engine.declare(key: Self.key("t.out"), expression: "t.in.throttle(300ms)", lookup: lookup)
                _ = try engine.declare(key: Self.key("d.out"), expression: "d.in.delay(200ms)", lookup: lookup)
                _ = try engine.declare(key: Self.key("o.out"), expression: "o.in.timeout(250ms)", lookup: lookup)
            } catch {
                Issue.record("\(error)")
                return
            }
            var alarm = WakeupAlarm()
            // Started wake-ups: when each goes off, and its generation.
            var wakeups: [(at: Int64, generation: UInt64)] = []
            func arm() {
                if case .start(let at, let generation) = alarm.arm(engine.nextDeadline?.milliseconds) {
                    // A sleep may end a little early (clock granularity) or late.
                    wakeups.append((at + Int64.random(in: -2...5, using: &rng), generation))
                }
            }
            arm()
            for step in 0..<120 {
                let now = clock.now().milliseconds
                switch Int.random(in: 0..<6, using: &rng) {
                case 0, 1:
                    let source = ["t.in", "d.in", "o.in"].randomElement(using: &rng) ?? "t.in"
                    let change = Change.set(Self.key(source), .integer(Int64(step)))
                    for derived in engine.propagate([change], lookup: lookup).changes {
                        if case .set(let v) = derived.kind { values[derived.key] = v }
                    }
                    values[Self.key(source)] = .integer(Int64(step))
                case 2:  // a key with a ttl, or a heartbeat
                    let key = Self.key("ttl.k\(Int.random(in: 0..<4, using: &rng))")
                    engine.expire([key], at: BindingInstant(milliseconds: now + Int64.random(in: 1...400, using: &rng)))
                    values[key] = .integer(1)
                case 3:  // made permanent
                    engine.expire([Self.key("ttl.k\(Int.random(in: 0..<4, using: &rng))")], at: nil)
                default:  // time passes; wake-ups go off in time order
                    let until = now + Int64.random(in: 1...350, using: &rng)
                    while let next = wakeups.indices.min(by: { wakeups[$0].at < wakeups[$1].at }),
                        wakeups[next].at <= until
                    {
                        let wakeup = wakeups.remove(at: next)
                        clock.set(BindingInstant(milliseconds: max(wakeup.at, clock.now().milliseconds)))
                        guard alarm.wentOff(wakeup.generation) else { continue }
                        let fired = engine.fireDueTimers(now: clock.now(), lookup: lookup)
                        for key in fired.expired { values[key] = nil }
                        for derived in fired.changes {
                            if case .set(let v) = derived.kind { values[derived.key] = v }
                        }
                        arm()
                    }
                    clock.set(BindingInstant(milliseconds: until))
                }
                arm()
                // The invariant: whatever is pending has a wake-up at or before it.
                if let deadline = engine.nextDeadline?.milliseconds {
                    let armed = alarm.armed
                    #expect(armed.map { $0 <= deadline } == true,
                        "deadline \(deadline) has no wake-up (armed \(String(describing: armed)); seed \(seed), step \(step))")
                    // Wake-ups may be up to 5 ms late; nothing is overdue by more.
                    #expect(deadline >= clock.now().milliseconds - 5,
                        "a deadline stayed overdue (seed \(seed), step \(step))")
                }
            }
        }
    }
}
