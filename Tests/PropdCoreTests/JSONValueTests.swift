import PropdCore
import Testing

@Suite struct JSONValueTests {
    @Test func integersStayIntegers() throws {
        #expect(try JSONValue(parsing: "21") == .integer(21))
        #expect(try JSONValue(parsing: "21").jsonString == "21")
        #expect(try JSONValue(parsing: "-0").jsonString == "0")
        #expect(try JSONValue(parsing: "9007199254740993").jsonString == "9007199254740993")
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .integer(.min))
    }

    @Test(arguments: [0, 7, -7, 10, -10, 1_000_000, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1])
    func integersAreWrittenInDecimal(value: Int64) throws {
        #expect(JSONValue.integer(value).jsonString == String(value))
        #expect(try JSONValue(parsing: JSONValue.integer(value).jsonString) == .integer(value))
    }

    @Test func wholeResultsBecomeIntegers() {
        #expect(JSONValue.number(6.0 / 2.0) == .integer(3))
        #expect(JSONValue.number(6.0 / 2.0).jsonString == "3")
        #expect(JSONValue.number(7.0 / 2.0).jsonString == "3.5")
        #expect(JSONValue.number(-0.0).jsonString == "0")
        // Above 2^53 a double is no longer exact, so it is not folded.
        #expect(JSONValue.number(1e300) == .double(1e300))
    }

    @Test func fractionsAndExponents() throws {
        #expect(try JSONValue(parsing: "21.5") == .double(21.5))
        #expect(try JSONValue(parsing: "21.0").jsonString == "21")
        #expect(try JSONValue(parsing: "1e3") == .integer(1000))
        #expect(try JSONValue(parsing: "2.5E-3") == .double(0.0025))
    }

    @Test func overflowingIntegerBecomesDouble() throws {
        #expect(try JSONValue(parsing: "92233720368547758070") == .double(92_233_720_368_547_758_080))
    }

    @Test func equalityIsJSONEquality() throws {
        #expect(JSONValue.integer(1) == JSONValue.double(1.0))
        #expect(JSONValue.integer(1).hashValue == JSONValue.double(1.0).hashValue)
        #expect(try JSONValue(parsing: #"{"a":1,"b":[true,null]}"#) == (try JSONValue(parsing: #"{"b":[true,null],"a":1.0}"#)))
        #expect(JSONValue.string("1") != JSONValue.integer(1))
        #expect(JSONValue.bool(false) != JSONValue.null)
        #expect(JSONValue.array([1, 2]) != JSONValue.array([2, 1]))
    }

    @Test func encodingIsCanonical() throws {
        let v = try JSONValue(parsing: #" { "b" : 2 , "a" : [ 1 , "x" , { } , [ ] ] } "#)
        #expect(v.jsonString == #"{"a":[1,"x",{},[]],"b":2}"#)
    }

    @Test func stringEscapes() throws {
        let v = try JSONValue(parsing: #""a\"b\\c\/d\n\t\r\b\f\u00e9\ud83d\ude00""#)
        #expect(v == .string("a\"b\\c/d\n\t\r\u{08}\u{0C}é😀"))
        #expect(JSONValue.string("q\"\\\n\u{01}é").jsonString == #""q\"\\\n\u0001é""#)
        #expect(try JSONValue(parsing: JSONValue.string("q\"\\\n\u{01}é😀").jsonString) == .string("q\"\\\n\u{01}é😀"))
    }

    @Test(arguments: [
        ("", "ends too early"),
        ("[1,", "ends too early"),
        ("[1 2]", "unexpected byte"),
        ("{\"a\" 1}", "unexpected byte"),
        ("{a:1}", "unexpected byte"),
        ("01", "data after"),
        ("1.", "invalid number"),
        ("-", "ends too early"),
        ("1e", "invalid number"),
        ("tru", "ends too early"),
        ("nul!", "unexpected byte"),
        ("\"abc", "ends too early"),
        ("\"a\u{01}\"", "control character"),
        ("\"\\x\"", "invalid escape"),
        ("\"\\ud800\"", "invalid escape"),
        ("\"\\u12G4\"", "invalid escape"),
        ("[1] x", "data after"),
        ("NaN", "unexpected byte"),
        ("Infinity", "unexpected byte"),
    ])
    func rejectsMalformedJSON(text: String, reason: String) {
        #expect {
            _ = try JSONValue(parsing: text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0x61, 0xFF, 0xFE, 0x22]
        #expect(throws: JSONParseError.self) { try JSONValue(parsingUTF8: bytes) }
        let escaped: [UInt8] = Array(#""\n"#.utf8) + [0xC3] + [0x22]
        #expect(throws: JSONParseError.self) { try JSONValue(parsingUTF8: escaped) }
    }

    @Test func refusesDeepNestingWithoutRecursingForever() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            _ = try JSONValue(parsing: deep)
        } throws: { error in
            (error as? JSONParseError)?.reason == .tooDeep(limit: JSONValue.defaultMaximumDepth)
        }
        let ok = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try JSONValue(parsing: ok) }
    }

    @Test func nonFiniteDoublesEncodeAsNull() {
        #expect(JSONValue.double(.infinity).jsonString == "null")
        #expect(JSONValue.double(.nan).jsonString == "null")
    }
}
