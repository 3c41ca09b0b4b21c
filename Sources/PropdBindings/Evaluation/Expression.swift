import PropdCore

/// A compiled expression: closure parameters are resolved to frame slots,
/// functions to enum cases and constant parts folded, so evaluation never
/// parses or looks a name up.
indirect enum Expression: Sendable {
    case constant(JSONValue)
    /// The closure parameter in this frame slot.
    case parameter(Int)
    case array([Expression])
    case object([(String, Expression)])
    case not(Expression, SourceLocation)
    case negate(Expression, SourceLocation)
    case binary(BinaryOperator, Expression, Expression, SourceLocation)
    case conditional(Expression, Expression, Expression, SourceLocation)
    case member(Expression, String, SourceLocation)
    case index(Expression, Expression, SourceLocation)
    case call(Function, [Expression], SourceLocation)

    var constantValue: JSONValue? {
        if case .constant(let value) = self { return value }
        return nil
    }
}

/// The functions of the language.
enum Function: String, Sendable, CaseIterable {
    case len, abs, min, max, round, floor, ceil, lower, upper, contains, string, number, key

    /// How many arguments the function accepts.
    var arity: ClosedRange<Int> {
        switch self {
        case .min, .max: return 1...64
        case .round: return 1...2
        case .contains: return 2...2
        default: return 1...1
        }
    }
}
