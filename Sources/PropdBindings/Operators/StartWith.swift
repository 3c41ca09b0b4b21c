import PropdCore

/// `startWith(value)` — RAC `startWith:`: when the binding is declared and
/// its sources have nothing to say yet, this value is emitted first.
enum StartWith {
    static func step(_ input: Emission, _ value: JSONValue, subscribing: Bool) -> Emission {
        guard subscribing else { return input }
        switch input {
        case .nothing, .deleted: return .value(value)
        case .value, .error: return input
        }
    }
}
