@testable import PropdCore
import Testing

@Suite struct KeyTests {
    @Test(arguments: ["room.temp", "a", "ui.login.enabled", "A-b_c.0", String(repeating: "a.", count: 31) + "a"])
    func acceptsValidKeys(text: String) throws {
        let key = try Key(text)
        #expect(key.rawValue == text)
    }

    @Test(arguments: [
        ("", KeySyntaxError.empty),
        (".a", .emptySegment(index: 0)),
        ("a.", .emptySegment(index: 1)),
        ("a..b", .emptySegment(index: 1)),
        ("a b", .invalidCharacter(" ", segment: 0)),
        ("room.tém", .invalidCharacter("é", segment: 1)),
        ("a/b", .invalidCharacter("/", segment: 0)),
        ("room.*", .wildcardInKey(segment: 1)),
        ("**", .wildcardInKey(segment: 0)),
        (String(repeating: "a.", count: 32) + "a", .tooManySegments(count: 33)),
        (String(repeating: "x", count: 257), .tooLong(bytes: 257)),
    ])
    func rejectsInvalidKeysWithAReason(text: String, expected: KeySyntaxError) {
        #expect(throws: expected) { try Key(text) }
        #expect(!expected.description.isEmpty)
    }

    /// The one-loop check a Set's keys take first says yes exactly where
    /// the full validation does (which then names what is wrong).
    @Test func thePlainKeyCheckAgreesWithTheFullValidation() {
        let alphabet: [String] = ["a", "Z", "0", "_", "-", ".", "*", " ", "é", "/"]
        var generator = SystemRandomNumberGenerator()
        var texts = [String(repeating: "x", count: 256), String(repeating: "x", count: 257),
            String(repeating: "a.", count: 31) + "a", String(repeating: "a.", count: 32) + "a", ".", "..", "a.b"]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            texts.append((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" }.joined())
        }
        for text in texts {
            let valid = (try? Key.validate(text, allowingWildcards: false)) != nil
            #expect(Key.isPlainKey(text) == valid, "\(text)")
        }
    }

    @Test func keysSortByBytes() throws {
        let keys = try ["b", "a.b", "a", "B", "a-b", "a_b"].map { try Key($0) }.sorted()
        #expect(keys.map(\.rawValue) == ["B", "a", "a-b", "a.b", "a_b", "b"])
    }

    @Test func reasonsAreReadable() {
        #expect(KeySyntaxError.invalidCharacter(" ", segment: 0).description.contains("letters, digits"))
        #expect(KeySyntaxError.tooLong(bytes: 300).description.contains("256"))
    }
}

@Suite struct KeyPatternTests {
    func matches(_ pattern: String, _ key: String) throws -> Bool {
        try KeyPattern(pattern).matches(try Key(key))
    }

    @Test func contractExamples() throws {
        #expect(try matches("room.*", "room.temp"))
        #expect(try !matches("room.*", "room.a.b"))
        #expect(try matches("room.**", "room.temp"))
        #expect(try matches("room.**", "room.a.b"))
        #expect(try !matches("room.*", "room"))
        #expect(try !matches("room.**", "room"))
        #expect(try matches("**", "room"))
        #expect(try matches("**", "a.b.c.d"))
    }

    @Test func exactAndInnerWildcards() throws {
        #expect(try matches("room.temp", "room.temp"))
        #expect(try !matches("room.temp", "room.temps"))
        #expect(try matches("*.temp", "kitchen.temp"))
        #expect(try !matches("*.temp", "kitchen.humidity"))
        #expect(try matches("a.*.c.**", "a.b.c.d.e"))
        #expect(try !matches("a.*.c.**", "a.b.c"))
        #expect(try KeyPattern("room.temp").isExactKey)
        #expect(try !KeyPattern("room.*").isExactKey)
        #expect(try KeyPattern("room.*.temp").literalPrefix == "room")
        #expect(try KeyPattern("**").literalPrefix == "")
    }

    @Test(arguments: [
        ("room.**.temp", KeySyntaxError.doubleStarNotLast(segment: 1)),
        ("**.a", .doubleStarNotLast(segment: 0)),
        ("**.**", .doubleStarNotLast(segment: 0)),
        ("room.t*", .mixedWildcard(segment: 1)),
        ("***", .mixedWildcard(segment: 0)),
        ("", .empty),
        ("a..*", .emptySegment(index: 1)),
        ("a.$", .invalidCharacter("$", segment: 1)),
    ])
    func rejectsInvalidPatterns(text: String, expected: KeySyntaxError) {
        #expect(throws: expected) { try KeyPattern(text) }
    }
}
