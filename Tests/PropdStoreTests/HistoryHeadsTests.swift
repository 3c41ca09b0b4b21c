@testable import PropdStore
import Testing

/// The writer's memory of history heads: bounded, and forgetting on request.
@Suite struct HistoryHeadsTests {
    @Test func aFullMemoryForgetsEveryKeyBeforeRememberingANewOne() {
        let heads = HistoryHeads(capacity: 2)
        heads.appended("a", at: 1)
        heads.appended("b", at: 2)
        heads.appended("a", at: 3)  // known: nothing forgotten
        #expect(heads.head(of: "a") == 3)
        #expect(heads.head(of: "b") == 2)
        heads.appended("c", at: 4)
        #expect(heads.head(of: "a") == nil)
        #expect(heads.head(of: "b") == nil)
        #expect(heads.head(of: "c") == 4)
        #expect(heads.count == 1)
    }

    @Test func forgettingOneKeyLeavesTheOthers() {
        let heads = HistoryHeads()
        heads.appended("a", at: 1)
        heads.appended("b", at: 2)
        heads.forget("a")
        #expect(heads.head(of: "a") == nil)
        #expect(heads.head(of: "b") == 2)
        heads.forgetAll()
        #expect(heads.count == 0)
    }

    @Test func replacingAHeadAnswersTheOldOneAndLeavesAnUnknownKeyUnknown() {
        let heads = HistoryHeads()
        heads.appended("a", at: 1)
        #expect(heads.replaceHead(of: "a", with: 5) == 1)
        #expect(heads.head(of: "a") == 5)
        #expect(heads.replaceHead(of: "b", with: 6) == nil)
        #expect(heads.head(of: "b") == nil)
        #expect(heads.count == 1)
    }
}
