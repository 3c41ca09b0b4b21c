import PropdCore
import Testing

@Suite struct JSONValueTests {
    @Test func integersStayIntegers() throws {
        #expect(try JSONValue(parsing: "21") == .integer(21))
        #expect(try JSONValue(parsing: "21").jsonString == "21")
        #expect(try JSONValue(parsing: "9007199254740993").jsonString == "9007199254740993")
        #expect(JSONValue.number(6.0 / 2.0) == .integer(3))
        #expect(JSONValue.number(7.0 / 2.0).jsonString == "3.5")
    }
}
