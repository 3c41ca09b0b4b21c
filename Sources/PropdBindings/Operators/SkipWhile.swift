import PropdCore

/// `skipWhile { x in predicate }` — RAC `skipWhileBlock:`: values are dropped
/// while the predicate holds; from the first value for which it fails, every
/// value passes and the predicate is not asked again. Errors pass throughout
/// (as through `skip(n)`); a predicate that fails to evaluate is an error
/// state and opens nothing.
struct SkipWhileState: Sendable, Equatable {
    var passing: Bool

    mutating func step(_ input: Emission, _ predicate: Closure, changed: inout Bool) -> Emission {
        guard !passing, case .value(let value) = input else { return input }
        switch predicate.test(value, of: "skipWhile") {
        case .success(true):
            return .nothing
        case .success(false):
            passing = true
            changed = true
            return input
        case .failure(let failure):
            return .error(failure.message)
        }
    }

    var json: JSONValue { ["op": "skipWhile", "passing": .bool(passing)] }

    init(passing: Bool = false) { self.passing = passing }

    init?(json: JSONValue) {
        guard json["op"] == "skipWhile", case .bool(let passing)? = json["passing"] else { return nil }
        self.passing = passing
    }
}
