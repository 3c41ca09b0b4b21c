import PropdCore

/// `combineLatest(s1, …)` — RAC `combineLatest:`: waits until every source has
/// a value, then emits the list of their latest values on every change of any
/// of them. The latest values are state, so a change of one source never
/// needs the others to be read again. A deleted source makes it wait again.
struct CombineLatestState: Sendable, Equatable {
    var latest: [JSONValue?]

    mutating func step(_ inputs: [Emission], changed: inout Bool) -> Emission {
        var fresh = false
        var failure: String?
        for (i, input) in inputs.enumerated() {
            switch input {
            case .value(let value):
                latest[i] = value
                fresh = true
                changed = true
            case .deleted:
                if latest[i] != nil { changed = true }
                latest[i] = nil
            case .error(let message):
                if failure == nil { failure = message }
            case .nothing:
                break
            }
        }
        if let failure { return .error(failure) }
        guard fresh else { return .nothing }
        var values: [JSONValue] = []
        values.reserveCapacity(latest.count)
        for value in latest {
            guard let value else { return .nothing }
            values.append(value)
        }
        return .value(.array(values))
    }

    var json: JSONValue {
        ["op": "combineLatest", "latest": .array(latest.map { $0.map { ["value": $0] } ?? .null })]
    }

    init(count: Int) { latest = Array(repeating: nil, count: count) }

    init?(json: JSONValue, count: Int) {
        guard json["op"] == "combineLatest", case .array(let slots)? = json["latest"], slots.count == count else {
            return nil
        }
        latest = slots.map { $0["value"] }
    }
}
