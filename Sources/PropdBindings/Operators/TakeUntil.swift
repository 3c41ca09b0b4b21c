import PropdCore

/// `takeUntil(KEY)` — RAC `takeUntil:`: values pass until `KEY` changes (a
/// set or a delete after Bind); from then on the property stays frozen, as
/// after `take(n)`. `KEY` is a source of the binding, so its change is seen in
/// the same propagation as the values: when both change in one revision the
/// stream ends first and that revision's value is not emitted. The value `KEY`
/// has at Bind is not a change.
struct TakeUntilState: Sendable, Equatable {
    var frozen: Bool

    mutating func step(_ input: Emission, until stop: Emission, subscribing: Bool, changed: inout Bool)
        -> Emission
    {
        guard !frozen else { return .nothing }
        guard !subscribing else { return input }
        switch stop {
        case .value, .deleted:
            frozen = true
            changed = true
            return .nothing
        case .nothing, .error:
            return input
        }
    }

    var json: JSONValue { ["op": "takeUntil", "frozen": .bool(frozen)] }

    init(frozen: Bool = false) { self.frozen = frozen }

    init?(json: JSONValue) {
        guard json["op"] == "takeUntil", case .bool(let frozen)? = json["frozen"] else { return nil }
        self.frozen = frozen
    }
}
