import PropdCore
import Testing

/// Strings are parsed and encoded eight bytes at a time up to the first byte
/// that needs a look. These put each byte that matters, and its neighbours,
/// at every offset of strings as long as five words, so each falls in every
/// place of a word and in the tail after the last whole word.
@Suite struct JSONStringScanTests {
    /// Bytes that end a plain run (`"`, `\`, the control bytes at both ends
    /// of their range) or make it need validation (the first byte of a
    /// two-, three- and four-byte sequence), and their neighbours, which
    /// must pass as they are.
    static let marks: [String] = [
        "\"", "\\", "\n", "\u{00}", "\u{01}", "\u{1F}", "é", "€", "🙂",
        " ", "!", "#", "[", "]", "\u{7F}", "~",
    ]

    @Test(arguments: marks)
    func everyOffsetEncodesAsOneCharacterAtATimeAndReadsBack(mark: String) throws {
        for length in 0...40 {
            for offset in 0...length {
                let text = String(repeating: "a", count: offset) + mark + String(repeating: "b", count: length - offset)
                let encoded = JSONValue.string(text).jsonString
                #expect(encoded == Self.escapedOneCharacterAtATime(text), "\(length) \(offset)")
                #expect(try JSONValue(parsing: encoded) == .string(text), "\(length) \(offset)")
            }
        }
    }

    @Test func aRawControlByteIsRefusedWhereItIs() {
        for control: UInt8 in [0x00, 0x0A, 0x1F] {
            for offset in 0...24 {
                var bytes = [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "a"), count: 30) + [UInt8(ascii: "\"")]
                bytes[1 + offset] = control
                let error = Self.parseError(bytes)
                #expect(error?.reason == .controlCharacterInString && error?.offset == 1 + offset, "\(offset)")
            }
        }
    }

    @Test func invalidUTF8IsRefusedAtAnyOffset() {
        for offset in 0...24 {
            var bytes = [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "a"), count: 30) + [UInt8(ascii: "\"")]
            bytes[1 + offset] = 0xFF
            #expect(Self.parseError(bytes)?.reason == .invalidUTF8, "\(offset)")
        }
    }

    @Test func anUnterminatedStringEndsTooEarly() {
        for length in 0...24 {
            let bytes = [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "a"), count: length)
            let error = Self.parseError(bytes)
            #expect(error?.reason == .unexpectedEnd && error?.offset == 1 + length, "\(length)")
        }
    }

    /// The encoding the scan must agree with, one character at a time:
    /// the two-character escapes JSON names, `\u00XX` for other control
    /// characters, everything else as it is.
    static func escapedOneCharacterAtATime(_ text: String) -> String {
        let named: [Unicode.Scalar: String] = ["\"": #"\""#, "\\": #"\\"#, "\n": #"\n"#, "\r": #"\r"#, "\t": #"\t"#]
        let characters = text.unicodeScalars.map { scalar -> String in
            if let escape = named[scalar] { return escape }
            guard scalar.value < 0x20 else { return String(scalar) }
            return #"\u00"# + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        }
        return "\"" + characters.joined() + "\""
    }

    static func parseError(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONValue(parsingUTF8: bytes)
            return nil
        } catch {
            return error
        }
    }
}
