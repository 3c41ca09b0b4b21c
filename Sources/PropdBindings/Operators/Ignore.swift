import PropdCore

/// `ignore(value)` — RAC `ignore:`: values equal to `value` (JSON equality:
/// `1 == 1.0`, member order ignored) are dropped and the property keeps its
/// last value. Errors and deletions pass.
enum Ignore {
    static func step(_ input: Emission, _ ignored: JSONValue) -> Emission {
        if case .value(let value) = input, value == ignored { return .nothing }
        return input
    }
}
