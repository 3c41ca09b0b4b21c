import PropdCore

/// `delay(duration)` — RAC `delay:`: each value is emitted `duration` after
/// it arrived, in order, each in a revision of its own (one per firing, so
/// values that fall due together go out one revision after another). Errors
/// and deletions are not delayed. The queue of values and their due times is
/// state, so a restart emits them at the same moments (or at once when they
/// fell due while the daemon was down).
struct DelayState: Sendable, Equatable {
    struct Pending: Sendable, Equatable {
        /// Milliseconds since the epoch at which `value` is emitted.
        var due: Int64
        var value: JSONValue
    }

    /// Values waiting, oldest first.
    var queue: [Pending] = []

    /// When the next value is due.
    var deadline: Int64? { queue.first?.due }

    mutating func step(_ input: Emission, milliseconds: Int64, now: Int64, changed: inout Bool) -> Emission {
        var output = Emission.nothing
        if let first = queue.first, first.due <= now {
            output = .value(first.value)
            queue.removeFirst()
            changed = true
        }
        switch input {
        case .value(let value):
            queue.append(Pending(due: TimeoutState.add(now, milliseconds), value: value))
            changed = true
        case .error, .deleted:
            // Not delayed; a value falling due in the same evaluation goes first.
            if output == .nothing { output = input }
        case .nothing:
            break
        }
        return output
    }

    var json: JSONValue {
        ["op": "delay", "pending": .array(queue.map { ["due": .integer($0.due), "value": $0.value] })]
    }

    init() {}

    init?(json: JSONValue) {
        guard json["op"] == "delay", case .array(let items)? = json["pending"] else { return nil }
        var queue: [Pending] = []
        for item in items {
            guard case .integer(let due)? = item["due"], let value = item["value"] else { return nil }
            queue.append(Pending(due: due, value: value))
        }
        self.queue = queue
    }
}
