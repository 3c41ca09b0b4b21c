import PropdCore

/// Why a binding was refused. The cases match the contract's errors
/// `BindingInvalid(message, line, column)` and `BindingCycle(cycle)`.
///
/// ```swift
/// do { try engine.validate(key: k, expression: "combineLatest(a, b") }
/// catch .invalid(let message, let line, let column) {
///     // "expected ')' after the arguments of combineLatest at 1:19 (found the end of the expression)", 1, 19
/// }
/// ```
public enum BindingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A syntax or type error. `message` says what was expected, in user
    /// words, and ends with the position (`… at 1:23`); `line` and `column`
    /// are 1-based and count characters.
    case invalid(message: String, line: Int, column: Int)
    /// Declaring the binding would close a cycle. The keys are listed once
    /// each, starting with the key being declared, each one computed from the
    /// next (the last is computed from the first).
    case cycle([String])

    public var description: String {
        switch self {
        case .invalid(let message, _, _): return message
        case .cycle(let keys):
            return "binding would close a cycle: " + (keys + keys.prefix(1)).joined(separator: " -> ")
        }
    }
}

/// A 1-based line and column (in characters) inside an expression.
struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    var line: Int32
    var column: Int32

    static let start = SourceLocation(line: 1, column: 1)

    var description: String { "\(line):\(column)" }
}

extension BindingError {
    /// An `invalid` error whose message ends with where it happened.
    static func invalid(_ message: String, at location: SourceLocation) -> BindingError {
        .invalid(message: "\(message) at \(location)", line: Int(location.line), column: Int(location.column))
    }
}
