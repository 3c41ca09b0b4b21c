import PropdCore

/// `merge(s1, …)` — RAC `merge:`: every value of any source passes. When
/// several sources change in one revision the leftmost wins (one value per
/// revision). A deleted source emits nothing.
enum Merge {
    static func step(_ inputs: [Emission]) -> Emission {
        var failure: Emission?
        for input in inputs {
            switch input {
            case .value: return input
            case .error: if failure == nil { failure = input }
            case .nothing, .deleted: break
            }
        }
        return failure ?? .nothing
    }
}
