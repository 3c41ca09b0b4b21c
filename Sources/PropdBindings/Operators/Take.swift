import PropdCore

/// `take(n)` — RAC `take:`: the first n values pass, then the stream completes
/// and the property stays frozen at the last of them (errors too are ignored then).
struct TakeState: Sendable, Equatable {
    var taken: Int

    mutating func step(_ input: Emission, count: Int, changed: inout Bool) -> Emission {
        guard taken < count else { return .nothing }
        guard case .value = input else { return input }
        taken += 1
        changed = true
        return input
    }

    var json: JSONValue { ["op": "take", "taken": .integer(Int64(taken))] }

    init(taken: Int = 0) { self.taken = taken }

    init?(json: JSONValue) {
        guard json["op"] == "take", case .integer(let n)? = json["taken"], n >= 0 else { return nil }
        taken = Int(n)
    }
}
