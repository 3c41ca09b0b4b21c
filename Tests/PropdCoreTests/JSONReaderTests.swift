import PropdCore
import Testing

/// The piecewise reader accepts exactly what the parser accepts.
@Suite struct JSONReaderTests {
    /// Reads `text` as an object member by member (values whole) into the
    /// members in order; throws where the reader finds the text malformed.
    private func members(_ text: String, maximumDepth: Int = 256) throws(JSONParseError) -> [(String, JSONValue)]? {
        var text = text
        let read: Result<[(String, JSONValue)]?, JSONParseError> = text.withUTF8 { utf8 in
            Result { () throws(JSONParseError) in
                var reader = JSONReader(bytes: UnsafeRawBufferPointer(utf8), maximumDepth: maximumDepth)
                guard var object = try reader.beginObject() else { return nil }
                var members: [(String, JSONValue)] = []
                while let name = try reader.nextMember(of: &object) { members.append((name, try reader.readValue())) }
                try reader.finish()
                return members
            }
        }
        return try read.get()
    }

    @Test func readsAnObjectMemberByMember() throws {
        let read = try #require(try members(#" { "a" : 1 , "b\n" : [true, {"c": null}] , "a" : "x" } "#))
        #expect(read.map(\.0) == ["a", "b\n", "a"])
        #expect(read.map(\.1) == [1, [true, ["c": nil]], "x"])
        #expect(try members("{}")?.isEmpty == true)
    }

    @Test func aValueThatIsNotAnObjectIsNoObject() throws {
        #expect(try members("[1]") == nil)
        #expect(try members(#""text""#) == nil)
    }

    @Test func refusesWhatTheParserRefuses() {
        let malformed = [
            #"{,"a":1}"#, #"{"a":1,}"#, #"{"a":1 "b":2}"#, #"{"a" 1}"#, #"{a:1}"#, #"{"a":1} x"#, #"{"a":1"#,
            #"{"a":[1,]}"#, #"{"a":"\x"}"#,
        ]
        for text in malformed {
            #expect(throws: JSONParseError.self, "\(text)") { _ = try members(text) }
            #expect(throws: JSONParseError.self, "\(text)") { _ = try JSONValue(parsing: text) }
        }
    }

    @Test func countsNestingAsTheParserDoes() throws {
        // Depth 2: the object and one nested level.
        #expect(try members(#"{"a":{"b":1}}"#, maximumDepth: 2) != nil)
        #expect(try JSONValue(parsing: #"{"a":{"b":1}}"#, maximumDepth: 2) == ["a": ["b": 1]])
        var readerError: JSONParseError?
        do { _ = try members(#"{"a":{"b":1}}"#, maximumDepth: 1) } catch { readerError = error }
        var parserError: JSONParseError?
        do { _ = try JSONValue(parsing: #"{"a":{"b":1}}"#, maximumDepth: 1) } catch { parserError = error }
        #expect(readerError?.reason == .tooDeep(limit: 1))
        #expect(readerError == parserError)
    }

    /// `{"<name>": <value>, ...}` read with `nextMember(of:is:)` for its first
    /// member: the value when the member is `name`, `nil` when it is not.
    private func value(of name: StaticString, in text: String) throws(JSONParseError) -> JSONValue? {
        var text = text
        let read: Result<JSONValue?, JSONParseError> = text.withUTF8 { utf8 in
            Result { () throws(JSONParseError) in
                var reader = JSONReader(bytes: UnsafeRawBufferPointer(utf8))
                guard var object = try reader.beginObject(), try reader.nextMember(of: &object, is: name) else {
                    return nil
                }
                let value = try reader.readValue()
                _ = try reader.nextMember(of: &object)
                return value
            }
        }
        return try read.get()
    }

    @Test func anExpectedMemberIsMatchedByItsBytes() throws {
        #expect(try value(of: "values", in: #"{"values":1}"#) == 1)
        #expect(try value(of: "values", in: #" { "values" : [2] } "#) == [2])
        #expect(try value(of: "values", in: #"{"values":{"a":3},"x":4}"#) == ["a": 3])
        // Anything else is no match: a longer or shorter name, another
        // member, the object's end, the name spelt with an escape.
        for text in [
            #"{"valuesX":1}"#, #"{"value":1}"#, #"{"x":1}"#, #"{}"#, #"{"v"#, #"{"\u0076alues":1}"#, #"{"values"#,
        ] {
            #expect(try value(of: "values", in: text) == nil, "\(text)")
        }
        // A name that matches must still be followed by a colon.
        #expect(throws: JSONParseError.self) { _ = try value(of: "values", in: #"{"values" 1}"#) }
        #expect(throws: JSONParseError.self) { _ = try value(of: "values", in: #"{1:2}"#) }
    }
}
