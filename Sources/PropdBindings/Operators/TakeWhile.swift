import PropdCore

/// `takeWhile { x in predicate }` — RAC `takeWhileBlock:`: values pass while
/// the predicate holds; the first value for which it fails is not emitted and
/// freezes the property, as after `take(n)` (errors too are ignored then). A
/// predicate that fails to evaluate is an error state and freezes nothing.
struct TakeWhileState: Sendable, Equatable {
    var frozen: Bool

    mutating func step(_ input: Emission, _ predicate: Closure, changed: inout Bool) -> Emission {
        guard !frozen else { return .nothing }
        guard case .value(let value) = input else { return input }
        switch predicate.test(value, of: "takeWhile") {
        case .success(true):
            return input
        case .success(false):
            frozen = true
            changed = true
            return .nothing
        case .failure(let failure):
            return .error(failure.message)
        }
    }

    var json: JSONValue { ["op": "takeWhile", "frozen": .bool(frozen)] }

    init(frozen: Bool = false) { self.frozen = frozen }

    init?(json: JSONValue) {
        guard json["op"] == "takeWhile", case .bool(let frozen)? = json["frozen"] else { return nil }
        self.frozen = frozen
    }
}
