import PropdCore

/// `throttle(duration)` — RAC `throttle:`: a value is held back and emitted
/// once no newer value has arrived for the duration; a newer value replaces
/// it and restarts the wait. The pending value and its deadline are state, so
/// a restart continues the wait. Errors and deletions are not delayed.
struct ThrottleState: Sendable, Equatable {
    var pending: JSONValue?
    /// Milliseconds since the epoch at which `pending` is due.
    var deadline: Int64?

    mutating func step(_ input: Emission, milliseconds: Int64, now: Int64, changed: inout Bool) -> Emission {
        var output = Emission.nothing
        if let due = deadline, due <= now, let value = pending {
            output = .value(value)
            pending = nil
            deadline = nil
            changed = true
        }
        switch input {
        case .value(let value):
            pending = value
            deadline = TimeoutState.add(now, milliseconds)
            changed = true
        case .error, .deleted:
            if output == .nothing { output = input }
        case .nothing:
            break
        }
        return output
    }

    var json: JSONValue {
        guard let pending, let deadline else { return ["op": "throttle"] }
        return ["op": "throttle", "pending": pending, "deadline": .integer(deadline)]
    }

    init(pending: JSONValue? = nil, deadline: Int64? = nil) {
        self.pending = pending
        self.deadline = deadline
    }

    init?(json: JSONValue) {
        guard json["op"] == "throttle" else { return nil }
        if let value = json["pending"], case .integer(let due)? = json["deadline"] {
            pending = value
            deadline = due
        }
    }
}
