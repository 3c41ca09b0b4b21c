import PropdCore

/// Turns binding text into ``StreamSyntax``: a source (a key,
/// `combineLatest(…)` or `merge(…)`) followed by `.operator` calls.
///
/// Recursion is bounded: nesting deeper than ``maximumDepth`` is refused
/// with an error instead of exhausting the stack.
struct Parser {
    /// Deepest nesting of expressions and sources accepted.
    static let maximumDepth = 64
    /// Longest expression text accepted, in bytes.
    static let maximumLength = 65_536
    /// Most operators accepted in one chain.
    static let maximumOperators = 256

    var lexer: Lexer
    private var peeked: Token?
    var depth = 0

    init(_ text: String) { lexer = Lexer(text) }

    /// Parses a complete binding expression.
    static func parse(_ text: String) throws(BindingError) -> StreamSyntax {
        guard text.utf8.count <= maximumLength else {
            throw .invalid("the expression is longer than \(maximumLength) bytes", at: .start)
        }
        var parser = Parser(text)
        let stream = try parser.parseStream()
        let token = try parser.peek()
        guard case .end = token.kind else {
            throw parser.error("expected '.' and an operator or the end of the expression", found: token)
        }
        return stream
    }

    // MARK: Tokens

    mutating func peek() throws(BindingError) -> Token {
        if let peeked { return peeked }
        let token = try lexer.next()
        peeked = token
        return token
    }

    @discardableResult
    mutating func advance() throws(BindingError) -> Token {
        let token = try peek()
        peeked = nil
        return token
    }

    /// Forgets the looked-ahead token so raw scanning starts where it began.
    mutating func rewindPeek() {
        if let token = peeked { lexer.position = token.start }
        peeked = nil
    }

    mutating func location(of token: Token) -> SourceLocation { lexer.location(of: token.start) }

    mutating func error(_ expected: String, found token: Token) -> BindingError {
        let location = location(of: token)
        return .invalid(
            message: "\(expected) at \(location) (found \(token.kind.userDescription))",
            line: Int(location.line), column: Int(location.column))
    }

    mutating func isSymbol(_ symbol: Token.Symbol) throws(BindingError) -> Bool {
        if case .symbol(let s) = try peek().kind, s == symbol { return true }
        return false
    }

    /// Consumes `symbol` or fails with "expected '<symbol>' <context>".
    @discardableResult
    mutating func expect(_ symbol: Token.Symbol, _ context: @autoclosure () -> String) throws(BindingError) -> Token {
        let token = try peek()
        guard case .symbol(let s) = token.kind, s == symbol else {
            throw error("expected '\(symbol.rawValue)' \(context())", found: token)
        }
        return try advance()
    }

    mutating func enter(_ token: Token) throws(BindingError) {
        depth += 1
        if depth > Parser.maximumDepth {
            throw .invalid("the expression is nested too deeply (more than \(Parser.maximumDepth) levels)",
                at: location(of: token))
        }
    }

    mutating func leave() { depth -= 1 }

    // MARK: Sources and operators

    mutating func parseStream() throws(BindingError) -> StreamSyntax {
        let first = try peek()
        try enter(first)
        defer { leave() }
        var stream = try parseSource()
        var operators = 0
        while try isSymbol(.dot) {
            try advance()
            let nameToken = try advance()
            if case .identifier(let name) = nameToken.kind, let advice = RACOperatorAdvice.refusal(of: name) {
                throw .invalid(advice, at: location(of: nameToken))
            }
            guard case .identifier(let name) = nameToken.kind, OperatorSyntax.names.contains(name) else {
                throw error(
                    "expected an operator after '.' (one of \(OperatorSyntax.names.joined(separator: ", ")))",
                    found: nameToken)
            }
            operators += 1
            if operators > Parser.maximumOperators {
                throw .invalid("more than \(Parser.maximumOperators) operators in one chain",
                    at: location(of: nameToken))
            }
            stream = .apply(stream, try parseOperator(name, at: location(of: nameToken)))
        }
        return stream
    }

    private mutating func parseSource() throws(BindingError) -> StreamSyntax {
        rewindPeek()
        lexer.skipTrivia()
        let start = lexer.position
        let startLocation = lexer.location(of: start)
        let word = lexer.segment(at: start)
        guard !word.isEmpty else {
            throw error("expected a key, combineLatest(…) or merge(…)", found: try peek())
        }
        let name = lexer.text(word)
        let afterWord = lexer.skippingTrivia(from: word.upperBound)
        if name == "combineLatest" || name == "merge", lexer.byte(at: afterWord) == UInt8(ascii: "(") {
            lexer.position = word.upperBound
            try advance()  // '('
            var sources: [StreamSyntax] = []
            if try isSymbol(.rightParen) {
                throw error("expected at least one source inside \(name)(…)", found: try peek())
            }
            repeat {
                if !sources.isEmpty { try advance() }
                sources.append(try parseStream())
            } while try isSymbol(.comma)
            try expect(.rightParen, "after the arguments of \(name)")
            return name == "merge" ? .merge(sources, startLocation) : .combineLatest(sources, startLocation)
        }
        return try scanKey(from: start, location: startLocation)
    }

    /// Reads a dotted key. A segment named like an operator and followed by
    /// `(` or `{` is not part of the key: `room.temp.map { … }` is the key
    /// `room.temp` then `map`.
    private mutating func scanKey(from start: Int, location: SourceLocation) throws(BindingError) -> StreamSyntax {
        .key(try scanKeyName(from: start, location: location), location)
    }

    private mutating func scanKeyName(from start: Int, location: SourceLocation) throws(BindingError) -> Key {
        var end = lexer.segment(at: start).upperBound
        while lexer.byte(at: end) == UInt8(ascii: "."), let next = lexer.byte(at: end + 1), Lexer.isSegmentByte(next) {
            let word = lexer.segment(at: end + 1)
            let follower = lexer.byte(at: lexer.skippingTrivia(from: word.upperBound))
            let opensCall = follower == UInt8(ascii: "(") || follower == UInt8(ascii: "{")
            if opensCall && OperatorSyntax.names.contains(lexer.text(word)) { break }
            end = word.upperBound
        }
        if lexer.byte(at: end) == UInt8(ascii: "."), lexer.byte(at: end + 1).map(Lexer.isSegmentByte) != true {
            // `a..b` or `a.`: report the key as written rather than a missing operator.
            var run = end
            while let b = lexer.byte(at: run), b == UInt8(ascii: ".") || Lexer.isSegmentByte(b) { run += 1 }
            let written = lexer.text(start..<run)
            if case .failure(let error) = Result(catching: { () throws(KeySyntaxError) in try Key(written) }) {
                throw .invalid("'\(written)' is not a valid key: it \(error)", at: location)
            }
        }
        lexer.position = end
        let text = lexer.text(start..<end)
        let key: Key
        do {
            key = try Key(text)
        } catch {
            throw .invalid("'\(text)' is not a valid key: it \(error)", at: location)
        }
        let follower = lexer.byte(at: lexer.skippingTrivia(from: end))
        if follower == UInt8(ascii: "(") || follower == UInt8(ascii: "{") {
            let last = text.split(separator: ".").last.map(String.init) ?? text
            if let advice = RACOperatorAdvice.refusal(of: last) {
                throw .invalid(advice, at: lexer.location(of: end - last.utf8.count))
            }
            throw .invalid(
                "'\(last)' is not an operator or a source function; expected one of "
                    + "\(OperatorSyntax.names.joined(separator: ", ")), combineLatest or merge",
                at: lexer.location(of: end - last.utf8.count))
        }
        return key
    }

    private mutating func parseOperator(_ name: String, at location: SourceLocation) throws(BindingError)
        -> OperatorSyntax
    {
        let kind: OperatorSyntax.Kind
        switch name {
        case "map": kind = .map(try parseClosure(of: name))
        case "filter": kind = .filter(try parseClosure(of: name))
        case "flatMap", "flattenMap": kind = .flatMap(try parseClosure(of: name))
        case "distinctUntilChanged":
            if try isSymbol(.leftParen) {
                try advance()
                try expect(.rightParen, "after 'distinctUntilChanged(' (it takes no arguments)")
            }
            kind = .distinctUntilChanged
        case "skip": kind = .skip(try parseCount(of: name))
        case "take": kind = .take(try parseCount(of: name))
        case "startWith": kind = .startWith(try parseArgument(of: name))
        case "catchTo": kind = .catchTo(try parseArgument(of: name))
        case "throttle":
            kind = .throttle(milliseconds: try parseDuration(of: name).milliseconds)
        case "timeout":
            let duration = try parseDuration(of: name)
            kind = .timeout(milliseconds: duration.milliseconds, written: duration.written)
        case "delay":
            kind = .delay(milliseconds: try parseDuration(of: name).milliseconds)
        case "takeUntil": kind = try parseTakeUntil()
        case "takeWhile": kind = .takeWhile(try parseClosure(of: name))
        case "skipWhile": kind = .skipWhile(try parseClosure(of: name))
        case "ignore": kind = .ignore(try parseArgument(of: name))
        default:  // "scan"
            let seed = try parseArgument(of: name)
            kind = .scan(seed: seed, try parseClosure(of: name))
        }
        return OperatorSyntax(kind: kind, location: location)
    }

    /// `takeUntil(KEY)`: exactly one key, written as a source key is.
    private mutating func parseTakeUntil() throws(BindingError) -> OperatorSyntax.Kind {
        try expect(.leftParen, "after takeUntil")
        rewindPeek()
        lexer.skipTrivia()
        let start = lexer.position
        let location = lexer.location(of: start)
        let word = lexer.segment(at: start)
        guard !word.isEmpty else {
            throw error("expected a key inside takeUntil(…), e.g. takeUntil(cell.reused)", found: try peek())
        }
        if lexer.byte(at: lexer.skippingTrivia(from: word.upperBound)) == UInt8(ascii: "(") {
            throw .invalid("takeUntil takes one key, whose changes end the stream, not \(lexer.text(word))(…)",
                at: location)
        }
        let key = try scanKeyName(from: start, location: location)
        try expect(.rightParen, "after the key of takeUntil")
        return .takeUntil(key, location)
    }

    /// `(300ms)`: a duration longer than zero, and how it is written.
    private mutating func parseDuration(of name: String) throws(BindingError)
        -> (milliseconds: Int64, written: String)
    {
        try expect(.leftParen, "after \(name)")
        let token = try advance()
        guard case .duration(let milliseconds) = token.kind else {
            throw error("expected a duration like 300ms, 1s or 2m inside \(name)(…)", found: token)
        }
        guard milliseconds > 0 else {
            throw .invalid("the duration of \(name) must be longer than 0ms", at: self.location(of: token))
        }
        try expect(.rightParen, "after the duration of \(name)")
        return (milliseconds, lexer.text(token.start..<token.end))
    }

    private mutating func parseCount(of name: String) throws(BindingError) -> Int {
        try expect(.leftParen, "after \(name)")
        let token = try advance()
        guard case .number(.integer(let n)) = token.kind, n >= 0, n <= Int64(Int32.max) else {
            throw error("expected a whole number of values (0 or more) inside \(name)(…)", found: token)
        }
        try expect(.rightParen, "after the count of \(name)")
        return Int(n)
    }

    private mutating func parseArgument(of name: String) throws(BindingError) -> ExpressionSyntax {
        try expect(.leftParen, "after \(name)")
        let value = try parseExpression()
        try expect(.rightParen, "after the argument of \(name)")
        return value
    }

    private mutating func parseClosure(of name: String) throws(BindingError) -> ClosureSyntax {
        let open = try expect(.leftBrace, "to start the closure of \(name)")
        let location = self.location(of: open)
        let parameters = try parseParameters()
        let body = try parseExpression()
        try expect(.rightBrace, "to close the closure of \(name)")
        return ClosureSyntax(parameters: parameters, body: body, location: location)
    }

    /// `a, b in` when present; otherwise nothing is consumed.
    private mutating func parseParameters() throws(BindingError) -> [String]? {
        rewindPeek()
        let saved = lexer.position
        var names: [String] = []
        while case .identifier(let name)? = (try? lexer.next())?.kind, name != "in" {
            names.append(name)
            let separator = (try? lexer.next())?.kind
            if case .identifier("in")? = separator { return names }
            guard case .symbol(.comma)? = separator else { break }
        }
        lexer.position = saved
        return nil
    }
}
