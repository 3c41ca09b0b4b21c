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
}
