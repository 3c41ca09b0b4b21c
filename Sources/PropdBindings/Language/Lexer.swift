import PropdCore

/// Splits a binding expression into tokens on demand. Keys in source
/// position are not tokens: their segments may hold `-` and start with a
/// digit, so the parser asks for them with ``scanKey(at:)``.
struct Lexer {
    let bytes: [UInt8]
    var position = 0
    private var lines: LineTable

    init(_ text: String) {
        bytes = Array(text.utf8)
        lines = LineTable(bytes)
    }

    /// The line and column (in characters) of a byte offset.
    mutating func location(of offset: Int) -> SourceLocation { lines.location(of: offset, in: bytes) }

    // MARK: Bytes

    static func isSegmentByte(_ b: UInt8) -> Bool {
        isIdentifierByte(b) || b == UInt8(ascii: "-")
    }

    static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == UInt8(ascii: "_")
    }

    static func isIdentifierByte(_ b: UInt8) -> Bool { isIdentifierStart(b) || isDigit(b) }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// Skips spaces, newlines and `#` comments.
    mutating func skipTrivia() {
        while position < bytes.count {
            let b = bytes[position]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                position += 1
            } else if b == UInt8(ascii: "#") {
                while position < bytes.count, bytes[position] != 0x0A { position += 1 }
            } else {
                return
            }
        }
    }

    /// The offset of the first non-trivia byte at or after `offset`.
    func skippingTrivia(from offset: Int) -> Int {
        var copy = self
        copy.position = offset
        copy.skipTrivia()
        return copy.position
    }

    /// The run of key-segment bytes starting at `offset`.
    func segment(at offset: Int) -> Range<Int> {
        var end = offset
        while end < bytes.count, Lexer.isSegmentByte(bytes[end]) { end += 1 }
        return offset..<end
    }

    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    // MARK: Tokens

    /// The next token; a lexical error names what was wrong and where.
    mutating func next() throws(BindingError) -> Token {
        skipTrivia()
        let start = position
        guard position < bytes.count else { return Token(kind: .end, start: start, end: start) }
        let b = bytes[position]
        if Lexer.isIdentifierStart(b) {
            while position < bytes.count, Lexer.isIdentifierByte(bytes[position]) { position += 1 }
            return Token(kind: .identifier(text(start..<position)), start: start, end: position)
        }
        if Lexer.isDigit(b) { return try number() }
        if b == UInt8(ascii: "$") {
            position += 1
            let digits = position
            while position < bytes.count, Lexer.isDigit(bytes[position]) { position += 1 }
            guard position > digits, position - digits <= 4, let index = Int(text(digits..<position)) else {
                throw .invalid("expected a parameter number after '$' (like $0)", at: location(of: start))
            }
            return Token(kind: .dollar(index), start: start, end: position)
        }
        if b == UInt8(ascii: "\"") { return try string() }
        return try symbol()
    }

    private mutating func symbol() throws(BindingError) -> Token {
        let start = position
        let b = bytes[position]
        let next = byte(at: position + 1)
        let two: Token.Symbol? =
            switch (b, next) {
            case (UInt8(ascii: "?"), UInt8(ascii: "?")): .coalesce
            case (UInt8(ascii: "="), UInt8(ascii: "=")): .equal
            case (UInt8(ascii: "!"), UInt8(ascii: "=")): .notEqual
            case (UInt8(ascii: "<"), UInt8(ascii: "=")): .lessEqual
            case (UInt8(ascii: ">"), UInt8(ascii: "=")): .greaterEqual
            case (UInt8(ascii: "&"), UInt8(ascii: "&")): .and
            case (UInt8(ascii: "|"), UInt8(ascii: "|")): .or
            default: nil
            }
        if let two {
            position += 2
            return Token(kind: .symbol(two), start: start, end: position)
        }
        if let one = Lexer.singleSymbol(b) {
            position += 1
            return Token(kind: .symbol(one), start: start, end: position)
        }
        let character = text(start..<min(bytes.count, start + 4)).first.map(String.init) ?? "?"
        let hint =
            switch b {
            case UInt8(ascii: "&"): " (did you mean '&&'?)"
            case UInt8(ascii: "|"): " (did you mean '||'?)"
            case UInt8(ascii: "'"): " (strings use double quotes)"
            default: ""
            }
        throw .invalid("unexpected character '\(character)'\(hint)", at: location(of: start))
    }

    private static func singleSymbol(_ b: UInt8) -> Token.Symbol? {
        switch b {
        case UInt8(ascii: "("): .leftParen
        case UInt8(ascii: ")"): .rightParen
        case UInt8(ascii: "{"): .leftBrace
        case UInt8(ascii: "}"): .rightBrace
        case UInt8(ascii: "["): .leftBracket
        case UInt8(ascii: "]"): .rightBracket
        case UInt8(ascii: ","): .comma
        case UInt8(ascii: ":"): .colon
        case UInt8(ascii: "."): .dot
        case UInt8(ascii: "?"): .question
        case UInt8(ascii: "+"): .plus
        case UInt8(ascii: "-"): .minus
        case UInt8(ascii: "*"): .star
        case UInt8(ascii: "/"): .slash
        case UInt8(ascii: "%"): .percent
        case UInt8(ascii: "!"): .not
        case UInt8(ascii: "<"): .less
        case UInt8(ascii: ">"): .greater
        case UInt8(ascii: "="): .assign
        default: nil
        }
    }

    private mutating func number() throws(BindingError) -> Token {
        let start = position
        var isInteger = true
        while position < bytes.count, Lexer.isDigit(bytes[position]) { position += 1 }
        if byte(at: position) == UInt8(ascii: "."), let after = byte(at: position + 1), Lexer.isDigit(after) {
            isInteger = false
            position += 1
            while position < bytes.count, Lexer.isDigit(bytes[position]) { position += 1 }
        }
        if let e = byte(at: position), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var p = position + 1
            if let sign = byte(at: p), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { p += 1 }
            if let digit = byte(at: p), Lexer.isDigit(digit) {
                isInteger = false
                position = p
                while position < bytes.count, Lexer.isDigit(bytes[position]) { position += 1 }
            }
        }
        let literal = text(start..<position)
        // A unit right after the digits makes a duration: 300ms, 1s, 2m.
        if let unitStart = byte(at: position), Lexer.isIdentifierStart(unitStart) {
            let unitEnd = segment(at: position).upperBound
            let unit = text(position..<unitEnd)
            let factor: Double? =
                switch unit {
                case "ms": 1
                case "s": 1000
                case "m": 60_000
                default: nil
                }
            guard let factor, let amount = Double(literal) else {
                throw .invalid(
                    "unknown unit '\(unit)' after the number \(literal); durations use ms, s or m",
                    at: location(of: position))
            }
            let milliseconds = (amount * factor).rounded()
            guard milliseconds.isFinite, milliseconds <= 7 * 86_400_000 else {
                throw .invalid("duration \(literal)\(unit) is longer than 7 days", at: location(of: start))
            }
            position = unitEnd
            return Token(kind: .duration(Int64(milliseconds)), start: start, end: position)
        }
        if isInteger, let value = Int64(literal) {
            return Token(kind: .number(.integer(value)), start: start, end: position)
        }
        guard let value = Double(literal), value.isFinite else {
            throw .invalid("the number \(literal) is too large", at: location(of: start))
        }
        return Token(kind: .number(.number(value)), start: start, end: position)
    }

    private mutating func string() throws(BindingError) -> Token {
        let start = position
        position += 1
        var out: [UInt8] = []
        while true {
            guard position < bytes.count else {
                throw .invalid("unterminated string: expected a closing '\"'", at: location(of: start))
            }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return Token(kind: .string(String(decoding: out, as: UTF8.self)), start: start, end: position)
            }
            if b == 0x0A {
                throw .invalid("unterminated string: expected a closing '\"' before the end of the line",
                    at: location(of: start))
            }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                position += 1
                continue
            }
            let escapeStart = position
            position += 1
            guard let e = byte(at: position) else { continue }
            position += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(at: position) else {
                    throw .invalid("expected 4 hex digits after '\\u'", at: location(of: escapeStart))
                }
                position += 4
                if (0xD800..<0xDC00).contains(scalar), byte(at: position) == UInt8(ascii: "\\"),
                    byte(at: position + 1) == UInt8(ascii: "u"), let low = hex4(at: position + 2),
                    (0xDC00..<0xE000).contains(low)
                {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                guard let unicode = Unicode.Scalar(scalar) else {
                    throw .invalid("'\\u' escape is not a valid character", at: location(of: escapeStart))
                }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw .invalid("unknown escape '\\\(String(UnicodeScalar(e)))' in a string", at: location(of: escapeStart))
            }
        }
    }

    private func hex4(at offset: Int) -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        return UInt32(text(offset..<offset + 4), radix: 16)
    }
}

/// Maps byte offsets to line and column, remembering the last answer so
/// that a left-to-right parse costs linear time.
struct LineTable {
    private var lastOffset = 0
    private var last = SourceLocation.start

    init(_ bytes: [UInt8]) {}

    mutating func location(of offset: Int, in bytes: [UInt8]) -> SourceLocation {
        let target = min(max(0, offset), bytes.count)
        if target < lastOffset {
            lastOffset = 0
            last = .start
        }
        var line = last.line
        var column = last.column
        var i = lastOffset
        while i < target {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        lastOffset = target
        last = SourceLocation(line: line, column: column)
        return last
    }
}
