import PropdCore

/// `catchTo(value)` — RAC `catchTo:`: an evaluation error upstream yields this
/// value instead of putting the property in an error state.
enum CatchTo {
    static func step(_ input: Emission, _ value: JSONValue) -> Emission {
        if case .error = input { return .value(value) }
        return input
    }
}
