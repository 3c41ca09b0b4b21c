import PropdCore

/// The parsed form of a binding: a source followed by its chain of operators.
/// Locations point into the expression text for error messages.
indirect enum StreamSyntax: Sendable {
    case key(Key, SourceLocation)
    case combineLatest([StreamSyntax], SourceLocation)
    case merge([StreamSyntax], SourceLocation)
    case apply(StreamSyntax, OperatorSyntax)
}

/// One `.operator(...)` of a chain.
struct OperatorSyntax: Sendable {
    enum Kind: Sendable {
        case map(ClosureSyntax)
        case filter(ClosureSyntax)
        case distinctUntilChanged
        case skip(Int)
        case take(Int)
        case startWith(ExpressionSyntax)
        case catchTo(ExpressionSyntax)
        case throttle(milliseconds: Int64)
        case scan(seed: ExpressionSyntax, ClosureSyntax)
        case flatMap(ClosureSyntax)
        case takeUntil(Key, SourceLocation)
        case takeWhile(ClosureSyntax)
        case skipWhile(ClosureSyntax)
        case ignore(ExpressionSyntax)
        /// `written`: the duration as the expression spells it (`30s`).
        case timeout(milliseconds: Int64, written: String)
        case delay(milliseconds: Int64)
    }

    var kind: Kind
    var location: SourceLocation

    /// The names of the operators, as users write them.
    static let names: [String] = [
        "map", "filter", "distinctUntilChanged", "skip", "take", "startWith", "catchTo", "throttle", "scan",
        "flatMap", "takeUntil", "takeWhile", "skipWhile", "ignore", "flattenMap", "timeout", "delay",
    ]
}

/// `{ a, b in body }` or `{ body using $0 }`.
struct ClosureSyntax: Sendable {
    /// The named parameters; `nil` when the closure uses `$0 $1 …`.
    var parameters: [String]?
    var body: ExpressionSyntax
    var location: SourceLocation
}

/// An expression inside a closure or an operator's argument.
struct ExpressionSyntax: Sendable {
    indirect enum Kind: Sendable {
        case literal(JSONValue)
        case name(String)
        case dollar(Int)
        case array([ExpressionSyntax])
        case object([(String, ExpressionSyntax)])
        case unary(UnaryOperator, ExpressionSyntax)
        case binary(BinaryOperator, ExpressionSyntax, ExpressionSyntax)
        case conditional(ExpressionSyntax, ExpressionSyntax, ExpressionSyntax)
        case member(ExpressionSyntax, String)
        case index(ExpressionSyntax, ExpressionSyntax)
        case call(String, [ExpressionSyntax])
    }

    var kind: Kind
    var location: SourceLocation
    /// Nesting depth of this tree (a leaf is 1), bounded by the parser.
    var depth: Int
}

enum UnaryOperator: String, Sendable {
    case not = "!"
    case negate = "-"
}

enum BinaryOperator: String, Sendable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case and = "&&", or = "||", coalesce = "??"
}
