import PropdCore

/// `+ - * / %` and comparisons on JSON values. Integer operands stay exact
/// while they fit; every other result goes through `JSONValue.number(_:)`, so
/// whole results are integers (`6 / 2` is `3`) and non-finite ones are errors.
enum Arithmetic {
    static func negate(_ value: JSONValue, at location: SourceLocation) throws(EvaluationError) -> JSONValue {
        switch value {
        case .integer(let i) where i != Int64.min: return .integer(-i)
        case .integer, .double: return .number(-(value.doubleValue ?? 0))
        default:
            throw EvaluationError(kind: .typeMismatch, reason: "'-' needs a number, got \(value.typeName)",
                location: location)
        }
    }

    static func apply(_ op: BinaryOperator, _ a: JSONValue, _ b: JSONValue, at location: SourceLocation)
        throws(EvaluationError) -> JSONValue
    {
        // The common case first: two integers stay exact while they fit.
        if case .integer(let x) = a, case .integer(let y) = b, let exact = try integer(op, x, y, at: location) {
            return exact
        }
        switch op {
        case .equal: return .bool(a == b)
        case .notEqual: return .bool(a != b)
        case .less, .lessEqual, .greater, .greaterEqual: return .bool(try compare(op, a, b, at: location))
        case .add:
            switch (a, b) {
            case (.string(let x), .string(let y)): return .string(x + y)
            case (.array(let x), .array(let y)): return .array(x + y)
            case (.string, _), (_, .string):
                throw EvaluationError(kind: .typeMismatch,
                    reason: "cannot add \(a.typeName) and \(b.typeName); use string(x) to join a value to a string",
                    location: location)
            default: break
            }
        default: break
        }
        guard let x = a.doubleValue, let y = b.doubleValue else {
            throw EvaluationError(kind: .typeMismatch,
                reason: "'\(op.rawValue)' needs numbers, got \(a.typeName) and \(b.typeName)", location: location)
        }
        let result: Double
        switch op {
        case .add: result = x + y
        case .subtract: result = x - y
        case .multiply: result = x * y
        case .divide:
            guard y != 0 else { throw EvaluationError(kind: .divisionByZero, reason: "division by zero", location: location) }
            result = x / y
        default:  // .remainder
            guard y != 0 else {
                throw EvaluationError(kind: .divisionByZero, reason: "remainder of a division by zero", location: location)
            }
            result = x.truncatingRemainder(dividingBy: y)
        }
        guard result.isFinite else {
            throw EvaluationError(kind: .notFinite, reason: "the result of '\(op.rawValue)' is not a finite number",
                location: location)
        }
        return .number(result)
    }

    /// Exact integer arithmetic and comparison; `nil` when the operation must
    /// go through doubles (division, overflow).
    private static func integer(_ op: BinaryOperator, _ x: Int64, _ y: Int64, at location: SourceLocation)
        throws(EvaluationError) -> JSONValue?
    {
        let outcome: (partialValue: Int64, overflow: Bool)
        switch op {
        case .add: outcome = x.addingReportingOverflow(y)
        case .subtract: outcome = x.subtractingReportingOverflow(y)
        case .multiply: outcome = x.multipliedReportingOverflow(by: y)
        case .remainder:
            guard y != 0 else {
                throw EvaluationError(kind: .divisionByZero, reason: "remainder of a division by zero", location: location)
            }
            outcome = x.remainderReportingOverflow(dividingBy: y)
        case .less: return .bool(x < y)
        case .lessEqual: return .bool(x <= y)
        case .greater: return .bool(x > y)
        case .greaterEqual: return .bool(x >= y)
        case .equal: return .bool(x == y)
        case .notEqual: return .bool(x != y)
        case .divide:
            // Real division; exact when it divides evenly.
            guard y != 0 else { throw EvaluationError(kind: .divisionByZero, reason: "division by zero", location: location) }
            let (quotient, overflow) = x.dividedReportingOverflow(by: y)
            guard !overflow, quotient &* y == x, abs(Double(quotient)) <= JSONValue.maxExactInteger else { return nil }
            return .integer(quotient)
        default: return nil
        }
        return outcome.overflow ? nil : .integer(outcome.partialValue)
    }

    static func compare(_ op: BinaryOperator, _ a: JSONValue, _ b: JSONValue, at location: SourceLocation)
        throws(EvaluationError) -> Bool
    {
        let order: Int
        switch (a, b) {
        case (.integer(let x), .integer(let y)): order = x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)):
            order = x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        default:
            guard let x = a.doubleValue, let y = b.doubleValue else {
                throw EvaluationError(kind: .typeMismatch,
                    reason: "'\(op.rawValue)' compares two numbers or two strings, got \(a.typeName) and \(b.typeName)",
                    location: location)
            }
            order = x < y ? -1 : (x == y ? 0 : 1)
        }
        switch op {
        case .less: return order < 0
        case .lessEqual: return order <= 0
        case .greater: return order > 0
        default: return order >= 0
        }
    }
}
