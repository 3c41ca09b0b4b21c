import PropdCore

/// `scan(seed) { acc, x in expr }` — RAC `scanWithStart:reduce:`: each value
/// folds into the accumulator, which is emitted and persisted. An error leaves
/// the accumulator as it was.
struct ScanState: Sendable, Equatable {
    var accumulator: JSONValue

    mutating func step(
        _ input: Emission, _ reduce: Closure, limits: BindingLimits = .defaults, changed: inout Bool
    ) -> Emission {
        guard case .value(let value) = input else { return input }
        do {
            accumulator = try reduce.call(accumulator: accumulator, value, limits: limits)
            changed = true
            return .value(accumulator)
        } catch {
            return .error(error.description)
        }
    }

    var json: JSONValue { ["op": "scan", "accumulator": accumulator] }

    init(accumulator: JSONValue) { self.accumulator = accumulator }

    init?(json: JSONValue) {
        guard json["op"] == "scan", let accumulator = json["accumulator"] else { return nil }
        self.accumulator = accumulator
    }
}
