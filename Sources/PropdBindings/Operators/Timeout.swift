import PropdCore

/// `timeout(duration)` — RAC `timeout:onScheduler:`, without ending the
/// stream: when no new value has arrived for the duration (counted from the
/// last value, or from Bind), the property enters the error state
/// `timeout after DURATION`; the next value clears it. Errors and deletions
/// pass through and do not restart the wait. The deadline is state, so a
/// restart keeps counting from the same moment.
struct TimeoutState: Sendable, Equatable {
    /// Milliseconds since the epoch at which the silence becomes a timeout;
    /// `nil` before the first evaluation and once the timeout has fired.
    var deadline: Int64?
    /// Whether the timeout fired and no value has arrived since.
    var timedOut = false

    mutating func step(_ input: Emission, milliseconds: Int64, written: String, now: Int64, changed: inout Bool)
        -> Emission
    {
        if case .value = input {
            deadline = Self.add(now, milliseconds)
            timedOut = false
            changed = true
            return input
        }
        if let due = deadline, due <= now {
            deadline = nil
            timedOut = true
            changed = true
            return .error("timeout after \(written)")
        }
        if deadline == nil && !timedOut {
            // The first evaluation (Bind) starts the wait.
            deadline = Self.add(now, milliseconds)
            changed = true
        }
        return input
    }

    /// The instant `milliseconds` after `now`, saturating (a deadline past
    /// `Int64.max` never falls due); shared by every time operator.
    static func add(_ now: Int64, _ milliseconds: Int64) -> Int64 {
        let (due, overflow) = now.addingReportingOverflow(milliseconds)
        return overflow ? Int64.max : due
    }

    var json: JSONValue {
        var object: [String: JSONValue] = ["op": "timeout", "timedOut": .bool(timedOut)]
        if let deadline { object["deadline"] = .integer(deadline) }
        return .object(object)
    }

    init() {}

    init?(json: JSONValue) {
        guard json["op"] == "timeout" else { return nil }
        if case .integer(let due)? = json["deadline"] { deadline = due }
        timedOut = json["timedOut"] == .bool(true)
    }
}
