import PropdCore

/// `distinctUntilChanged()` — RAC `distinctUntilChanged`: a value equal (JSON
/// equality: `1 == 1.0`, member order ignored) to the last one emitted is dropped.
struct DistinctState: Sendable, Equatable {
    var last: JSONValue?

    mutating func step(_ input: Emission, changed: inout Bool) -> Emission {
        guard case .value(let value) = input else { return input }
        if let last, last == value { return .nothing }
        last = value
        changed = true
        return input
    }

    var json: JSONValue { ["op": "distinctUntilChanged", "last": last.map { ["value": $0] } ?? .null] }

    init(last: JSONValue? = nil) { self.last = last }

    init?(json: JSONValue) {
        guard json["op"] == "distinctUntilChanged" else { return nil }
        last = json["last"]?["value"]
    }
}
