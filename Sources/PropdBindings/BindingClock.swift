/// A point in time for the binding engine: milliseconds since the Unix epoch.
/// Wall-clock based so that a throttle's deadline persisted before a restart
/// still means the same moment after it.
public struct BindingInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// This instant moved forward by `duration` (rounded down to whole milliseconds).
    public func advanced(by duration: Duration) -> BindingInstant {
        let (seconds, attoseconds) = duration.components
        // Saturates instead of trapping on absurd durations.
        let (whole, overflow1) = seconds.multipliedReportingOverflow(by: 1000)
        let (sum, overflow2) = milliseconds.addingReportingOverflow(whole &+ attoseconds / 1_000_000_000_000_000)
        if overflow1 || overflow2 { return BindingInstant(milliseconds: seconds < 0 ? Int64.min : Int64.max) }
        return BindingInstant(milliseconds: sum)
    }

    public static func < (lhs: BindingInstant, rhs: BindingInstant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public var description: String { "\(milliseconds)ms" }
}

/// Where time operators (`throttle`, `delay`, `timeout`) and expiring keys read the current time. The engine never
/// reads a system clock itself: the service injects one, tests inject a
/// ``ManualBindingClock`` and move it by hand.
public protocol BindingClock {
    /// The current time.
    func now() -> BindingInstant
}

/// A clock that stands still until told to move: for tests and replays.
///
/// ```swift
/// let clock = ManualBindingClock(at: BindingInstant(milliseconds: 0))
/// let engine = BindingEngine(clock: clock)
/// clock.advance(by: .milliseconds(300))
/// let fired = engine.fireDueTimers(now: clock.now(), lookup: store.value(of:))
/// ```
public final class ManualBindingClock: BindingClock {
    public private(set) var current: BindingInstant

    public init(at start: BindingInstant = BindingInstant(milliseconds: 0)) { current = start }

    public func now() -> BindingInstant { current }

    /// Moves the clock forward.
    public func advance(by duration: Duration) { current = current.advanced(by: duration) }

    /// Sets the clock to `instant`.
    public func set(_ instant: BindingInstant) { current = instant }
}
