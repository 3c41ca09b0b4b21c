import PropdCore

/// The JSON types an expression may produce, as far as they are known when
/// the binding is declared. Parameters are `any`; literals and operators
/// narrow it, so `len(5)` or `"a" * 2` are refused before they ever run.
struct ValueType: OptionSet, Sendable, CustomStringConvertible {
    let rawValue: UInt8
    static let null = ValueType(rawValue: 1)
    static let bool = ValueType(rawValue: 2)
    static let number = ValueType(rawValue: 4)
    static let string = ValueType(rawValue: 8)
    static let array = ValueType(rawValue: 16)
    static let object = ValueType(rawValue: 32)
    static let any: ValueType = [.null, .bool, .number, .string, .array, .object]

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(of value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .bool
        case .integer, .double: self = .number
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }

    var description: String {
        let names: [(ValueType, String)] = [
            (.null, "null"), (.bool, "a bool"), (.number, "a number"), (.string, "a string"), (.array, "an array"),
            (.object, "an object"),
        ]
        let parts = names.filter { contains($0.0) }.map(\.1)
        return parts.count > 3 ? "any value" : parts.joined(separator: " or ")
    }
}

/// Type rules of operators and functions, checked when a binding is declared.
enum Checker {
    /// Fails unless `type` may be one of `allowed`.
    static func require(_ type: ValueType, _ allowed: ValueType, _ what: String, at location: SourceLocation)
        throws(BindingError)
    {
        guard type.isDisjoint(with: allowed) else { return }
        throw .invalid("\(what) must be \(allowed), but it is \(type)", at: location)
    }

    static func unary(_ op: UnaryOperator, _ operand: ValueType, at location: SourceLocation) throws(BindingError)
        -> ValueType
    {
        switch op {
        case .not:
            try require(operand, .bool, "the operand of '!'", at: location)
            return .bool
        case .negate:
            try require(operand, .number, "the operand of '-'", at: location)
            return .number
        }
    }

    static func binary(_ op: BinaryOperator, _ lhs: ValueType, _ rhs: ValueType, at location: SourceLocation)
        throws(BindingError) -> ValueType
    {
        switch op {
        case .add:
            var result: ValueType = []
            for kind in [ValueType.number, .string, .array] where lhs.contains(kind) && rhs.contains(kind) {
                result.insert(kind)
            }
            if result.isEmpty {
                throw .invalid("cannot add \(lhs) and \(rhs): '+' adds numbers, joins strings or joins arrays"
                    + (lhs == .string || rhs == .string ? " (use string(x) to join a value to a string)" : ""),
                    at: location)
            }
            return result
        case .subtract, .multiply, .divide, .remainder:
            try require(lhs, .number, "the left side of '\(op.rawValue)'", at: location)
            try require(rhs, .number, "the right side of '\(op.rawValue)'", at: location)
            return .number
        case .less, .lessEqual, .greater, .greaterEqual:
            let comparable: ValueType = [.number, .string]
            try require(lhs, comparable, "the left side of '\(op.rawValue)'", at: location)
            try require(rhs, comparable, "the right side of '\(op.rawValue)'", at: location)
            if lhs.intersection(rhs).intersection(comparable).isEmpty {
                throw .invalid("'\(op.rawValue)' compares two numbers or two strings, not \(lhs) and \(rhs)",
                    at: location)
            }
            return .bool
        case .equal, .notEqual:
            return .bool
        case .and, .or:
            try require(lhs, .bool, "the left side of '\(op.rawValue)'", at: location)
            try require(rhs, .bool, "the right side of '\(op.rawValue)'", at: location)
            return .bool
        case .coalesce:
            return lhs.subtracting(.null).union(rhs)
        }
    }

    static func call(_ function: Function, _ arguments: [ValueType], at location: SourceLocation)
        throws(BindingError) -> ValueType
    {
        let name = function.rawValue
        guard function.arity.contains(arguments.count) else {
            let expected =
                function.arity.count == 1
                ? "\(function.arity.lowerBound) argument\(function.arity.lowerBound == 1 ? "" : "s")"
                : "\(function.arity.lowerBound) to \(function.arity.upperBound) arguments"
            throw .invalid("\(name) takes \(expected), got \(arguments.count)", at: location)
        }
        let first = arguments[0]
        switch function {
        case .len:
            try require(first, [.string, .array, .object], "the argument of len", at: location)
            return .number
        case .abs, .floor, .ceil, .round:
            try require(first, .number, "the argument of \(name)", at: location)
            if arguments.count == 2 { try require(arguments[1], .number, "the digits of round", at: location) }
            return .number
        case .min, .max:
            if arguments.count == 1 {
                try require(first, .array, "the single argument of \(name)", at: location)
                return [.number, .string]
            }
            for argument in arguments { try require(argument, [.number, .string], "each argument of \(name)", at: location) }
            return arguments.reduce(ValueType.any) { $0.intersection($1) }.intersection([.number, .string])
        case .lower, .upper:
            try require(first, .string, "the argument of \(name)", at: location)
            return .string
        case .contains:
            try require(first, [.string, .array, .object], "the first argument of contains", at: location)
            return .bool
        case .string:
            return .string
        case .number:
            try require(first, [.string, .number, .bool], "the argument of number", at: location)
            return .number
        case .key:
            try require(first, .string, "the argument of key", at: location)
            return .string
        }
    }
}
