import PropdCore

/// `map { x in expr }` — RAC `map`: each value is transformed; an error of the
/// closure becomes the property's error state instead of ending the stream.
enum Map {
    static func step(_ input: Emission, _ closure: Closure, limits: BindingLimits = .defaults) -> Emission {
        guard case .value(let value) = input else { return input }
        do {
            return .value(try closure.call(value, limits: limits))
        } catch {
            return .error(error.description)
        }
    }
}
