import PropdCore

/// One lexical element of a binding expression.
struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        /// `$0`, `$1`, …: an anonymous closure parameter.
        case dollar(Int)
        case number(JSONValue)
        /// `300ms`, `1s`, `2m`, in milliseconds.
        case duration(Int64)
        case string(String)
        case symbol(Symbol)
        case end
    }

    enum Symbol: String, Sendable, CaseIterable {
        case leftParen = "(", rightParen = ")", leftBrace = "{", rightBrace = "}"
        case leftBracket = "[", rightBracket = "]", comma = ",", colon = ":", dot = "."
        case question = "?", coalesce = "??", plus = "+", minus = "-", star = "*", slash = "/"
        case percent = "%", not = "!", equal = "==", notEqual = "!=", less = "<", lessEqual = "<="
        case greater = ">", greaterEqual = ">=", and = "&&", or = "||", assign = "="
    }

    var kind: Kind
    /// Byte offsets of the token in the expression text.
    var start: Int
    var end: Int
}

extension Token.Kind {
    /// How an error message names what was found.
    var userDescription: String {
        switch self {
        case .identifier(let name): return "'\(name)'"
        case .dollar(let index): return "'$\(index)'"
        case .number(let value): return "the number \(value.jsonString)"
        case .duration: return "a duration"
        case .string(let text): return "the string \(JSONValue.string(text).jsonString)"
        case .symbol(let symbol): return "'\(symbol.rawValue)'"
        case .end: return "the end of the expression"
        }
    }
}
