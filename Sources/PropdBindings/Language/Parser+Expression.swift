import PropdCore

/// Expressions, from lowest to highest precedence (as in Swift):
/// `c ? a : b`, `||`, `&&`, comparisons (not chained), `??` (right to left),
/// `+ -`, `* / %`, prefix `! -`, then `.field`, `[index]` and calls.
extension Parser {
    mutating func parseExpression() throws(BindingError) -> ExpressionSyntax {
        let token = try peek()
        try enter(token)
        defer { leave() }
        return try parseConditional()
    }

    private mutating func node(_ kind: ExpressionSyntax.Kind, _ location: SourceLocation, children: [ExpressionSyntax])
        throws(BindingError) -> ExpressionSyntax
    {
        let depth = 1 + (children.map(\.depth).max() ?? 0)
        guard depth <= Parser.maximumDepth else {
            throw .invalid("the expression is nested too deeply (more than \(Parser.maximumDepth) levels)", at: location)
        }
        return ExpressionSyntax(kind: kind, location: location, depth: depth)
    }

    private mutating func parseConditional() throws(BindingError) -> ExpressionSyntax {
        let condition = try parseOr()
        guard try isSymbol(.question) else { return condition }
        let question = try advance()
        let whenTrue = try parseExpression()
        try expect(.colon, "between the two branches of '? :'")
        let whenFalse = try parseExpression()
        return try node(.conditional(condition, whenTrue, whenFalse), location(of: question),
            children: [condition, whenTrue, whenFalse])
    }

    private mutating func parseLeftAssociative(
        _ operators: (Token.Symbol) -> BinaryOperator?,
        _ operand: (inout Parser) throws(BindingError) -> ExpressionSyntax
    ) throws(BindingError) -> ExpressionSyntax {
        var left = try operand(&self)
        while case .symbol(let s) = try peek().kind, let op = operators(s) {
            let token = try advance()
            let right = try operand(&self)
            left = try node(.binary(op, left, right), location(of: token), children: [left, right])
        }
        return left
    }

    private mutating func parseOr() throws(BindingError) -> ExpressionSyntax {
        try parseLeftAssociative({ $0 == .or ? .or : nil }) { (p: inout Parser) throws(BindingError) in try p.parseAnd() }
    }

    private mutating func parseAnd() throws(BindingError) -> ExpressionSyntax {
        try parseLeftAssociative({ $0 == .and ? .and : nil }) { (p: inout Parser) throws(BindingError) in try p.parseComparison() }
    }

    private static func comparison(_ symbol: Token.Symbol) -> BinaryOperator? {
        switch symbol {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessEqual: .lessEqual
        case .greater: .greater
        case .greaterEqual: .greaterEqual
        default: nil
        }
    }

    private static func additive(_ symbol: Token.Symbol) -> BinaryOperator? {
        switch symbol {
        case .plus: .add
        case .minus: .subtract
        default: nil
        }
    }

    private static func multiplicative(_ symbol: Token.Symbol) -> BinaryOperator? {
        switch symbol {
        case .star: .multiply
        case .slash: .divide
        case .percent: .remainder
        default: nil
        }
    }

    private mutating func parseComparison() throws(BindingError) -> ExpressionSyntax {
        let left = try parseCoalesce()
        guard case .symbol(let s) = try peek().kind, let op = Parser.comparison(s) else { return left }
        let token = try advance()
        let right = try parseCoalesce()
        if case .symbol(let next) = try peek().kind, Parser.comparison(next) != nil {
            throw .invalid("comparisons cannot be chained; join them with && instead", at: location(of: try peek()))
        }
        return try node(.binary(op, left, right), location(of: token), children: [left, right])
    }

    private mutating func parseCoalesce() throws(BindingError) -> ExpressionSyntax {
        let left = try parseAdditive()
        guard try isSymbol(.coalesce) else { return left }
        let token = try advance()
        let right = try parseCoalesceOperand()
        return try node(.binary(.coalesce, left, right), location(of: token), children: [left, right])
    }

    private mutating func parseCoalesceOperand() throws(BindingError) -> ExpressionSyntax {
        try enter(try peek())
        defer { leave() }
        return try parseCoalesce()
    }

    private mutating func parseAdditive() throws(BindingError) -> ExpressionSyntax {
        try parseLeftAssociative(Parser.additive) { (p: inout Parser) throws(BindingError) in
            try p.parseMultiplicative()
        }
    }

    private mutating func parseMultiplicative() throws(BindingError) -> ExpressionSyntax {
        try parseLeftAssociative(Parser.multiplicative) {
            (p: inout Parser) throws(BindingError) in try p.parseUnary()
        }
    }

    private mutating func parseUnary() throws(BindingError) -> ExpressionSyntax {
        let token = try peek()
        guard case .symbol(let s) = token.kind, s == .not || s == .minus else { return try parsePostfix() }
        try advance()
        try enter(token)
        defer { leave() }
        let operand = try parseUnary()
        if s == .minus, case .literal(let value) = operand.kind, let number = value.doubleValue {
            let negated: JSONValue = if case .integer(let i) = value, i != Int64.min { .integer(-i) } else { .number(-number) }
            return try node(.literal(negated), location(of: token), children: [])
        }
        return try node(.unary(s == .not ? .not : .negate, operand), location(of: token), children: [operand])
    }

    private mutating func parsePostfix() throws(BindingError) -> ExpressionSyntax {
        var value = try parsePrimary()
        while true {
            if try isSymbol(.dot) {
                let dot = try advance()
                let name = try advance()
                let field: String
                switch name.kind {
                case .identifier(let text): field = text
                case .string(let text): field = text
                default: throw error("expected a field name after '.'", found: name)
                }
                value = try node(.member(value, field), location(of: dot), children: [value])
            } else if try isSymbol(.leftBracket) {
                let open = try advance()
                let index = try parseExpression()
                try expect(.rightBracket, "to close the index")
                value = try node(.index(value, index), location(of: open), children: [value, index])
            } else {
                return value
            }
        }
    }

    private mutating func parsePrimary() throws(BindingError) -> ExpressionSyntax {
        let token = try advance()
        let location = self.location(of: token)
        switch token.kind {
        case .number(let value): return try node(.literal(value), location, children: [])
        case .string(let text): return try node(.literal(.string(text)), location, children: [])
        case .dollar(let index): return try node(.dollar(index), location, children: [])
        case .identifier("true"): return try node(.literal(true), location, children: [])
        case .identifier("false"): return try node(.literal(false), location, children: [])
        case .identifier("null"): return try node(.literal(.null), location, children: [])
        case .identifier(let name):
            guard try isSymbol(.leftParen) else { return try node(.name(name), location, children: []) }
            try advance()
            var arguments: [ExpressionSyntax] = []
            if !(try isSymbol(.rightParen)) {
                repeat {
                    if !arguments.isEmpty { try advance() }
                    arguments.append(try parseExpression())
                } while try isSymbol(.comma)
            }
            try expect(.rightParen, "after the arguments of \(name)")
            return try node(.call(name, arguments), location, children: arguments)
        case .symbol(.leftParen):
            let inner = try parseExpression()
            try expect(.rightParen, "to close the parenthesis opened at \(location)")
            return inner
        case .symbol(.leftBracket):
            var elements: [ExpressionSyntax] = []
            if !(try isSymbol(.rightBracket)) {
                repeat {
                    if !elements.isEmpty { try advance() }
                    elements.append(try parseExpression())
                } while try isSymbol(.comma)
            }
            try expect(.rightBracket, "to close the array opened at \(location)")
            return try node(.array(elements), location, children: elements)
        case .symbol(.leftBrace):
            var members: [(String, ExpressionSyntax)] = []
            if !(try isSymbol(.rightBrace)) {
                repeat {
                    if !members.isEmpty { try advance() }
                    let nameToken = try advance()
                    let name: String
                    switch nameToken.kind {
                    case .string(let text): name = text
                    case .identifier(let text): name = text
                    default: throw error("expected a member name (a string) in the object", found: nameToken)
                    }
                    try expect(.colon, "after the member name \(JSONValue.string(name).jsonString)")
                    members.append((name, try parseExpression()))
                } while try isSymbol(.comma)
            }
            try expect(.rightBrace, "to close the object opened at \(location)")
            return try node(.object(members), location, children: members.map(\.1))
        case .duration:
            throw .invalid("a duration is only allowed inside throttle(…), timeout(…) or delay(…)", at: location)
        default:
            throw error("expected a value (a number, string, true, false, null, [..], {..}, a name or '(')",
                found: token)
        }
    }
}
