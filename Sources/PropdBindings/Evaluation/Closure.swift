import PropdCore

/// A compiled closure: its body plus how an incoming value fills the frame.
struct Closure: Sendable {
    enum Shape: Sendable, Equatable {
        /// The value is parameter 0 (`{ x in … }`, or the whole list after combineLatest).
        case whole
        /// The value is a list of `n` values, one parameter each (`combineLatest(a, b).map { a, b in … }`).
        case spread(Int)
    }

    var body: Expression
    var shape: Shape
    /// `scan`'s closure: the accumulator comes first, then the value's parameters.
    var takesAccumulator: Bool
    var location: SourceLocation

    /// Calls the closure on `value` within `limits`: its result is never
    /// larger than ``BindingLimits/maxValueBytes``.
    func call(_ value: JSONValue, limits: BindingLimits = .defaults) throws(EvaluationError) -> JSONValue {
        var budget = EvaluationBudget(limits, at: location)
        let result: JSONValue
        switch shape {
        case .whole: result = try body.evaluate(.one(value), &budget)
        case .spread(let count): result = try body.evaluate(.many(try spread(value, count)), &budget)
        }
        return try budget.admit(result, at: location)
    }

    func call(accumulator: JSONValue, _ value: JSONValue, limits: BindingLimits = .defaults) throws(EvaluationError)
        -> JSONValue
    {
        var budget = EvaluationBudget(limits, at: location)
        let result: JSONValue
        switch shape {
        case .whole: result = try body.evaluate(.many([accumulator, value]), &budget)
        case .spread(let count):
            result = try body.evaluate(.many([accumulator] + (try spread(value, count))), &budget)
        }
        return try budget.admit(result, at: location)
    }

    private func spread(_ value: JSONValue, _ count: Int) throws(EvaluationError) -> [JSONValue] {
        guard case .array(let elements) = value, elements.count == count else {
            throw EvaluationError(kind: .typeMismatch,
                reason: "the closure takes \(count) parameters but got \(value.jsonString)", location: location)
        }
        return elements
    }
}
