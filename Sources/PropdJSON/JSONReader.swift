/// Reads one JSON document piece by piece, for a decoder that knows the
/// shape it expects and wants its fields without a ``JSONValue`` tree of the
/// whole document (a call's envelope and parameters on the hot path).
///
/// It accepts exactly what ``JSONValue/init(parsingUTF8:maximumDepth:)``
/// accepts, counting nesting the same way, so a decoder that reads a whole
/// document through it and finds no error has read a document the parser
/// would have read alike (an object's repeated member is the decoder's to
/// handle: the parser keeps the last).
///
/// ```swift
/// var reader = JSONReader(bytes: bytes)
/// guard var object = try reader.beginObject() else { return nil }
/// while let name = try reader.nextMember(of: &object) {
///     let value = try reader.readValue()
/// }
/// try reader.finish()
/// ```
public struct JSONReader {
    private var parser: JSONParser

    /// Where an object's members are being read: before the first, or after one.
    public struct ObjectCursor: Sendable {
        fileprivate var first = true
    }

    public init(bytes: UnsafeRawBufferPointer, maximumDepth: Int = JSONValue.defaultMaximumDepth) {
        parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
    }

    /// Enters the object that comes next; `nil`, with nothing consumed but
    /// white space, when the next value is not an object.
    public mutating func beginObject() throws(JSONParseError) -> ObjectCursor? {
        guard try parser.peek() == UInt8(ascii: "{") else { return nil }
        try parser.enter()
        parser.index += 1
        return ObjectCursor()
    }

    /// The name of the object's next member, positioned at its value; `nil`
    /// once the object's closing brace is consumed.
    public mutating func nextMember(of object: inout ObjectCursor) throws(JSONParseError) -> String? {
        var next = try parser.peek()
        if next == UInt8(ascii: "}") {
            parser.index += 1
            parser.depth -= 1
            return nil
        }
        if !object.first {
            guard next == UInt8(ascii: ",") else { throw parser.fail(.unexpectedByte(next)) }
            parser.index += 1
            next = try parser.peek()
        }
        guard next == UInt8(ascii: "\"") else { throw parser.fail(.unexpectedByte(next)) }
        object.first = false
        let name = try parser.parseString()
        let colon = try parser.peek()
        guard colon == UInt8(ascii: ":") else { throw parser.fail(.unexpectedByte(colon)) }
        parser.index += 1
        return name
    }

    /// Whether the object's next member is named `name`, positioned at its
    /// value when it is: the member a decoder expects is matched by its
    /// bytes, without a `String` of its name. `false` for anything else (the
    /// object's end, another member, `name` spelt with escapes), after which
    /// the reader's position is unspecified: the decoder gives up and reads
    /// the document the usual way. `name` is plain ASCII (no `"` or `\`).
    public mutating func nextMember(of object: inout ObjectCursor, is name: StaticString) throws(JSONParseError)
        -> Bool
    {
        var next = try parser.peek()
        if next == UInt8(ascii: "}") { return false }
        if !object.first {
            guard next == UInt8(ascii: ",") else { throw parser.fail(.unexpectedByte(next)) }
            parser.index += 1
            next = try parser.peek()
        }
        guard next == UInt8(ascii: "\"") else { throw parser.fail(.unexpectedByte(next)) }
        let expected = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        let start = parser.index + 1
        let end = start + expected.count
        guard end < parser.bytes.count, parser.bytes[end] == UInt8(ascii: "\"") else { return false }
        for offset in expected.indices where parser.bytes[start + offset] != expected[offset] { return false }
        object.first = false
        parser.index = end + 1
        let colon = try parser.peek()
        guard colon == UInt8(ascii: ":") else { throw parser.fail(.unexpectedByte(colon)) }
        parser.index += 1
        return true
    }

    /// The next value, whole.
    public mutating func readValue() throws(JSONParseError) -> JSONValue {
        try parser.parseValue()
    }

    /// Checks that nothing but white space follows.
    public mutating func finish() throws(JSONParseError) {
        parser.skipWhitespace()
        if parser.index != parser.bytes.count { throw parser.fail(.trailingData) }
    }
}
