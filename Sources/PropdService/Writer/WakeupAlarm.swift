/// When the writer must next wake up to fire deadlines: the decisions of the
/// daemon's one timer, kept apart from tasks and clocks so that every
/// interleaving of arm, replace and fire can be tested with an injected clock.
///
/// The rule that keeps every deadline from being lost: after EVERY write
/// body and after EVERY wake-up (whether it found something due or not),
/// the owner calls ``arm(_:)`` with the engine's earliest deadline. Then a
/// wake-up is always pending at or before that deadline, because:
/// - `arm` starts a new wake-up unless one is pending at or before it;
/// - a pending wake-up is only forgotten when it goes off, and going off is
///   followed by a firing that arms again for whatever is pending then.
///
/// ```swift
/// var alarm = WakeupAlarm()
/// if case .start(let at, let generation) = alarm.arm(engine.nextDeadline?.milliseconds) {
///     // sleep until `at`, then: if alarm.wentOff(generation) { fire; alarm.arm(next) }
/// }
/// ```
struct WakeupAlarm: Sendable, Equatable {
    enum Decision: Sendable, Equatable {
        /// A wake-up at or before the deadline is pending already (or there is no deadline).
        case keep
        /// Start a wake-up at `deadline`, replacing (cancelling) the pending one.
        case start(deadline: Int64, generation: UInt64)
    }

    /// The deadline the pending wake-up is for.
    private(set) var armed: Int64?
    /// Identifies the pending wake-up; an older one that still goes off is ignored.
    private(set) var generation: UInt64 = 0

    /// Makes sure a wake-up is pending at or before `deadline`.
    mutating func arm(_ deadline: Int64?) -> Decision {
        guard let deadline else { return .keep }
        if let armed, armed <= deadline { return .keep }
        generation &+= 1
        armed = deadline
        return .start(deadline: deadline, generation: generation)
    }

    /// The wake-up of `generation` went off. Returns whether it is the pending
    /// one (then nothing is pending until the caller fires and arms again).
    mutating func wentOff(_ generation: UInt64) -> Bool {
        guard generation == self.generation, armed != nil else { return false }
        armed = nil
        return true
    }

    /// Forgets the pending wake-up (shutdown).
    mutating func disarm() {
        armed = nil
        generation &+= 1
    }
}
