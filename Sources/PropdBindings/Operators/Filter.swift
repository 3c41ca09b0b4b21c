import PropdCore

/// `filter { x in predicate }` — RAC `filter`: only values for which the
/// predicate is true pass; otherwise the property keeps its last value. The
/// last value let through is remembered (and persisted) as the state.
struct FilterState: Sendable, Equatable {
    var lastPassed: JSONValue?

    mutating func step(
        _ input: Emission, _ predicate: Closure, limits: BindingLimits = .defaults, changed: inout Bool
    ) -> Emission {
        guard case .value(let value) = input else { return input }
        do {
            let verdict = try predicate.call(value, limits: limits)
            guard case .bool(let passes) = verdict else {
                return .error("the predicate of filter must return a bool, got \(verdict.typeName) at \(predicate.location)")
            }
            guard passes else { return .nothing }
            lastPassed = value
            changed = true
            return input
        } catch {
            return .error(error.description)
        }
    }

    var json: JSONValue { ["op": "filter", "lastPassed": lastPassed.map { ["value": $0] } ?? .null] }

    init(lastPassed: JSONValue? = nil) { self.lastPassed = lastPassed }

    init?(json: JSONValue) {
        guard json["op"] == "filter" else { return nil }
        lastPassed = json["lastPassed"]?["value"]
    }
}
