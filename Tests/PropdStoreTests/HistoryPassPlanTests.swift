import PropdCore
import Testing

@testable import PropdStore

/// What one pass decides, on a window built in memory: which revisions go
/// as ranges, which rows are left behind, and where the next pass begins.
@Suite struct HistoryPassPlanTests {
    /// Revisions 1 to 100, each one row of one of four keys in turn.
    func window() -> HistoryCompaction.Window {
        var window = HistoryCompaction.Window()
        for revision in 1...100 { window.append(Int64(revision), key("k\(revision % 4)")) }
        return window
    }

    @Test func aFloorStopsThePassWhileTheWindowIsWithinItsCapacity() {
        var plan = HistoryCompaction.PassPlan()
        plan.walk(window(), keep: 2, floor: 10, limit: 1000, windowLimit: 1000, capacity: 1000)
        #expect(plan.ranges == [1..<11])
        #expect(plan.newestRemoved == 10)
        #expect(plan.head == 10, "the first row above the floor")
        #expect(plan.passed.map(\.leftBehind).reduce(0, +) == 0)
    }

    /// A floor held for long (a slow consumer's grace) would otherwise
    /// keep every row after it in the writer's memory.
    @Test func rowsAboveAFloorAreLeftBehindPastTheWindowsCapacity() {
        var plan = HistoryCompaction.PassPlan()
        plan.walk(window(), keep: 2, floor: 10, limit: 1000, windowLimit: 1000, capacity: 50)
        // Nothing above the floor goes; rows are forgotten until 50 remain.
        #expect(plan.ranges == [1..<11])
        #expect(plan.newestRemoved == 10)
        #expect(plan.passed.map(\.removed).reduce(0, +) == 10)
        #expect(plan.passed.map(\.leftBehind).reduce(0, +) == 40)
        #expect(plan.head == 50, "revision 51, the first of the last 50 rows")
    }

    @Test func withoutAFloorThePassStopsAtTheFirstRowThatMustStay() {
        var plan = HistoryCompaction.PassPlan()
        plan.walk(window(), keep: 2, floor: nil, limit: 1000, windowLimit: 1000, capacity: 1000)
        // Each key keeps its 2 newest rows: revisions 93 to 100; 92 is k0's
        // third newest, 93 the first that must stay.
        #expect(plan.ranges == [1..<93])
        #expect(plan.head == 92)
        #expect(plan.passed.map(\.removed).reduce(0, +) == 92)
    }
}
