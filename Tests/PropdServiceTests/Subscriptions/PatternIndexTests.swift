import PropdCore
import Testing

@testable import PropdService

@Suite struct PatternIndexTests {
    @Test func exactKey() throws {
        var index = PatternIndex<Int>()
        index.insert(try KeyPattern("room.temp"), 1)
        #expect(index.matches(try Key("room.temp")) == [1])
        #expect(index.matches(try Key("room.hum")).isEmpty)
    }
}
