/// Why a byte string is not the JSON propd accepts.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidNumber
        /// A well-formed number beyond what a double holds (`1e400`).
        case numberOutOfRange
        case invalidEscape
        case invalidUTF8
        case controlCharacterInString
        case tooDeep(limit: Int)
        case trailingData
    }

    public var reason: Reason
    /// Byte offset in the input where the problem was found.
    public var offset: Int

    public var description: String {
        switch reason {
        case .unexpectedEnd: return "JSON ends too early (at byte \(offset))"
        case .unexpectedByte(let b): return "unexpected byte 0x\(String(b, radix: 16)) at byte \(offset)"
        case .invalidNumber: return "invalid number at byte \(offset)"
        case .numberOutOfRange: return "number out of range at byte \(offset)"
        case .invalidEscape: return "invalid escape in string at byte \(offset)"
        case .invalidUTF8: return "invalid UTF-8 in string at byte \(offset)"
        case .controlCharacterInString: return "unescaped control character in string at byte \(offset)"
        case .tooDeep(let limit): return "JSON nested deeper than \(limit) levels at byte \(offset)"
        case .trailingData: return "data after the JSON value at byte \(offset)"
        }
    }
}

extension JSONValue {
    /// Nesting deeper than this is refused, so hostile input cannot exhaust the stack.
    public static let defaultMaximumDepth = 256

    /// Parses one JSON document (RFC 8259, UTF-8). Surrounding whitespace is allowed.
    public init(parsing text: String, maximumDepth: Int = JSONValue.defaultMaximumDepth) throws(JSONParseError) {
        var text = text
        let result: Result<JSONValue, JSONParseError> = text.withUTF8 { utf8 in
            Result { () throws(JSONParseError) in
                try JSONValue(parsingUTF8: UnsafeRawBufferPointer(utf8), maximumDepth: maximumDepth)
            }
        }
        self = try result.get()
    }

    /// Parses one JSON document from raw UTF-8 bytes.
    public init(parsingUTF8 bytes: UnsafeRawBufferPointer, maximumDepth: Int = JSONValue.defaultMaximumDepth)
        throws(JSONParseError)
    {
        var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
        self = try parser.parseDocument()
    }

    /// Parses one JSON document from a byte array.
    public init(parsingUTF8 bytes: [UInt8], maximumDepth: Int = JSONValue.defaultMaximumDepth) throws(JSONParseError) {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: raw, maximumDepth: maximumDepth) }
        }
        self = try result.get()
    }
}

/// A recursive-descent parser over borrowed bytes. Depth is bounded, so the
/// recursion is too.
struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    let maximumDepth: Int
    var index = 0
    var depth = 0

    init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        if index != bytes.count { throw fail(.trailingData) }
        return value
    }

    func fail(_ reason: JSONParseError.Reason) -> JSONParseError {
        JSONParseError(reason: reason, offset: index)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func peek() throws(JSONParseError) -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw fail(.unexpectedEnd) }
        return bytes[index]
    }

    private mutating func expectLiteral(_ literal: StaticString, _ value: JSONValue) throws(JSONParseError)
        -> JSONValue
    {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail(.unexpectedEnd) }
        let expected = literal.utf8Start
        for i in 0..<count where bytes[index + i] != expected[i] {
            index += i
            throw fail(.unexpectedByte(bytes[index]))
        }
        index += count
        return value
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expectLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try expectLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try expectLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let b: throw fail(.unexpectedByte(b))
        }
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maximumDepth { throw fail(.tooDeep(limit: maximumDepth)) }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        if try peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            case let b: throw fail(.unexpectedByte(b))
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            guard try peek() == UInt8(ascii: "\"") else { throw fail(.unexpectedByte(bytes[index])) }
            let name = try parseString()
            guard try peek() == UInt8(ascii: ":") else { throw fail(.unexpectedByte(bytes[index])) }
            index += 1
            members[name] = try parseValue()
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            case let b: throw fail(.unexpectedByte(b))
            }
        }
    }

    /// Parses a string starting at its opening quote. The common case (no
    /// escapes) validates and copies the bytes in one step.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        let run = JSONStringScan.plainRun(in: bytes, from: start)
        index = run.end
        guard index < bytes.count else { throw fail(.unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "\\"): return try parseEscapedString(from: start)
        case UInt8(ascii: "\""): break
        default: throw fail(.controlCharacterInString)
        }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index]).assumingMemoryBound(to: UInt8.self)
        // ASCII needs no validation; `String(decoding:)` on a typed
        // buffer is the specialised fast path (no generic metadata).
        let s: String
        if !run.sawNonASCII {
            s = String(decoding: slice, as: UTF8.self)
        } else {
            guard let validated = String(validating: slice, as: UTF8.self) else {
                index = start
                throw fail(.invalidUTF8)
            }
            s = validated
        }
        index += 1
        return s
    }

    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        var out: [UInt8] = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    index = start
                    throw fail(.invalidUTF8)
                }
                return s
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail(.unexpectedEnd) }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): appendScalar(try parseUnicodeEscape(), to: &out)
                default:
                    index -= 1
                    throw fail(.invalidEscape)
                }
            default:
                if b < 0x20 { throw fail(.controlCharacterInString) }
                out.append(b)
                index += 1
            }
        }
        throw fail(.unexpectedEnd)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail(.unexpectedEnd) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail(.invalidEscape)
            }
            v = v << 4 | UInt32(digit)
            index += 1
        }
        return v
    }

    /// `\uXXXX`, joining a surrogate pair; a lone surrogate is an error.
    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let high = try parseHex4()
        if (0xD800...0xDBFF).contains(high) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw fail(.invalidEscape) }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            else { throw fail(.invalidEscape) }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw fail(.invalidEscape) }
        return scalar
    }

    private func appendScalar(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        out.append(contentsOf: scalar.utf8)
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw fail(.unexpectedEnd) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        } else {
            throw fail(.invalidNumber)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail(.invalidNumber) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail(.invalidNumber) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let i = parseInt64(text) { return .integer(i) }
        // The grammar above only admits ASCII, so this decoding is total.
        guard let d = Double(String(decoding: text, as: UTF8.self)) else {
            index = start
            throw fail(.invalidNumber)
        }
        guard d.isFinite else {
            index = start
            throw fail(.numberOutOfRange)
        }
        return .number(d)
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// Exact Int64 parse of an already validated integer literal; nil on overflow.
    private func parseInt64(_ text: UnsafeRawBufferPointer) -> Int64? {
        var i = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var value: Int64 = 0
        while i < text.count {
            let digit = Int64(text[i] - UInt8(ascii: "0"))
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = s
            i += 1
        }
        return value
    }
}
