import PropdCore

/// `skip(n)` — RAC `skip:`: the first n values are ignored (with the value
/// current at Bind counting as the first, as RACObserve sends it first).
struct SkipState: Sendable, Equatable {
    var skipped: Int

    mutating func step(_ input: Emission, count: Int, changed: inout Bool) -> Emission {
        guard case .value = input, skipped < count else { return input }
        skipped += 1
        changed = true
        return .nothing
    }

    var json: JSONValue { ["op": "skip", "skipped": .integer(Int64(skipped))] }

    init(skipped: Int = 0) { self.skipped = skipped }

    init?(json: JSONValue) {
        guard json["op"] == "skip", case .integer(let n)? = json["skipped"], n >= 0 else { return nil }
        skipped = Int(n)
    }
}
