import PropdCore

/// A closure's parameters during one call. A single value is held inline so
/// the common `map { $0 … }` call allocates nothing.
enum Frame {
    case one(JSONValue)
    case many([JSONValue])

    static let empty = Frame.many([])

    subscript(slot: Int) -> JSONValue {
        switch self {
        case .one(let value): return value
        case .many(let values): return values[slot]
        }
    }
}

extension Expression {
    /// Evaluates the expression with closure parameters in `frame`, within `budget`.
    func evaluate(_ frame: Frame, _ budget: inout EvaluationBudget) throws(EvaluationError) -> JSONValue {
        try budget.step()
        switch self {
        case .constant(let value):
            return value
        case .parameter(let slot):
            return frame[slot]
        case .array(let elements):
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try element.evaluate(frame, &budget)) }
            return try budget.admit(.array(values), at: budget.location)
        case .object(let members):
            var values: [String: JSONValue] = [:]
            for (name, member) in members { values[name] = try member.evaluate(frame, &budget) }
            return try budget.admit(.object(values), at: budget.location)
        case .not(let operand, let location):
            guard case .bool(let b) = try operand.evaluate(frame, &budget) else {
                throw EvaluationError(kind: .typeMismatch,
                    reason: "'!' needs a bool, got \(try operand.evaluate(frame, &budget).typeName)", location: location)
            }
            return .bool(!b)
        case .negate(let operand, let location):
            return try Arithmetic.negate(try operand.evaluate(frame, &budget), at: location)
        case .binary(let op, let lhs, let rhs, let location):
            return try evaluateBinary(op, lhs, rhs, location, frame, &budget)
        case .conditional(let condition, let whenTrue, let whenFalse, let location):
            let value = try condition.evaluate(frame, &budget)
            guard case .bool(let b) = value else {
                throw EvaluationError(kind: .typeMismatch,
                    reason: "the condition of '? :' must be a bool, got \(value.typeName)", location: location)
            }
            return try (b ? whenTrue : whenFalse).evaluate(frame, &budget)
        case .member(let base, let name, let location):
            return try Access.member(try base.evaluate(frame, &budget), name, at: location)
        case .index(let base, let index, let location):
            return try Access.index(try base.evaluate(frame, &budget), try index.evaluate(frame, &budget), at: location)
        case .call(let function, let arguments, let location):
            var values: [JSONValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments {
                let value = try argument.evaluate(frame, &budget)
                try budget.read(value, at: location)
                values.append(value)
            }
            return try budget.admit(try function.apply(values, at: location), at: location)
        }
    }

    private func evaluateBinary(
        _ op: BinaryOperator, _ lhs: Expression, _ rhs: Expression, _ location: SourceLocation,
        _ frame: Frame, _ budget: inout EvaluationBudget
    ) throws(EvaluationError) -> JSONValue {
        switch op {
        case .and, .or:
            let left = try lhs.evaluate(frame, &budget)
            guard case .bool(let a) = left else {
                throw EvaluationError(kind: .typeMismatch,
                    reason: "'\(op.rawValue)' needs bools, got \(left.typeName) on its left", location: location)
            }
            if op == .and ? !a : a { return .bool(a) }
            let right = try rhs.evaluate(frame, &budget)
            guard case .bool = right else {
                throw EvaluationError(kind: .typeMismatch,
                    reason: "'\(op.rawValue)' needs bools, got \(right.typeName) on its right", location: location)
            }
            return right
        case .coalesce:
            let left: JSONValue
            do throws(EvaluationError) {
                left = try lhs.evaluate(frame, &budget)
            } catch {
                guard error.isMissing else { throw error }
                return try rhs.evaluate(frame, &budget)
            }
            if case .null = left { return try rhs.evaluate(frame, &budget) }
            return left
        default:
            let left = try lhs.evaluate(frame, &budget)
            let right = try rhs.evaluate(frame, &budget)
            // Integer + - * inline: the commonest arithmetic of bindings.
            if case .integer(let x) = left, case .integer(let y) = right {
                let outcome: (partialValue: Int64, overflow: Bool)
                switch op {
                case .add: outcome = x.addingReportingOverflow(y)
                case .subtract: outcome = x.subtractingReportingOverflow(y)
                case .multiply: outcome = x.multipliedReportingOverflow(by: y)
                default: outcome = (0, true)
                }
                if !outcome.overflow { return .integer(outcome.partialValue) }
            }
            try budget.read(left, at: location)
            try budget.read(right, at: location)
            return try budget.admit(try Arithmetic.apply(op, left, right, at: location), at: location)
        }
    }
}

/// Member and index access.
enum Access {
    static func member(_ base: JSONValue, _ name: String, at location: SourceLocation) throws(EvaluationError)
        -> JSONValue
    {
        guard case .object(let members) = base else {
            throw EvaluationError(kind: .typeMismatch,
                reason: "cannot read field '\(name)' of a \(base.typeName)", location: location)
        }
        guard let value = members[name] else {
            throw EvaluationError(kind: .missingField, reason: "missing field '\(name)'", location: location)
        }
        return value
    }

    static func index(_ base: JSONValue, _ index: JSONValue, at location: SourceLocation) throws(EvaluationError)
        -> JSONValue
    {
        switch (base, index) {
        case (.array(let elements), _):
            guard let position = index.doubleValue, position.rounded(.towardZero) == position else {
                throw EvaluationError(kind: .typeMismatch,
                    reason: "an array index must be a whole number, got \(index.jsonString)", location: location)
            }
            guard position >= 0, position < Double(elements.count) else {
                throw EvaluationError(kind: .indexOutOfRange,
                    reason: "index \(index.jsonString) is out of range for an array of \(elements.count) elements",
                    location: location)
            }
            return elements[Int(position)]
        case (.object, .string(let name)):
            return try member(base, name, at: location)
        case (.object, _):
            throw EvaluationError(kind: .typeMismatch,
                reason: "an object is indexed by a string, got \(index.typeName)", location: location)
        default:
            throw EvaluationError(kind: .typeMismatch, reason: "cannot index a \(base.typeName)", location: location)
        }
    }
}
