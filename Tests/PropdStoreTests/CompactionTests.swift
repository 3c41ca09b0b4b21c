import Foundation
import PropdCore
import PropdStore
import Testing

@Suite struct CompactionTests {
    /// Writes `rounds` requests over a few keys with uneven frequencies and
    /// checks, for every `since`, that `changes(after:)` is either exactly the
    /// full sequence of changes after it or `.compacted`, with one boundary.
    @Test(arguments: [1, 3, 8])
    func changesAfterIsCompleteOrCompactedNeverAGap(historyPerKey: Int) async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: historyPerKey)
        var model: [ChangeSet] = []
        var perKey: [Key: [Event]] = [:]
        for i in 1...240 {
            // "hot" every time, "warm" every 5th, "cold" every 40th, and a delete now and then.
            var set: [Key: JSONValue] = [key("hot"): .integer(Int64(i))]
            if i % 5 == 0 { set[key("warm")] = .integer(Int64(i)) }
            if i % 40 == 0 { set[key("cold")] = .integer(Int64(i)) }
            let delete = i % 50 == 1 && i > 1 ? [key("warm")] : []
            let changes = try await store.write(WriteRequest(set: set, delete: delete))
            model.append(changes)
            for change in changes.changes {
                perKey[change.key, default: []].insert(change.event(at: changes.revision), at: 0)
            }
        }
        let oldest = try store.oldestCompleteRevision()
        #expect(oldest > 1, "the hot key forced compaction")
        for since in 0...Int64(model.count + 1) {
            let since = Revision(since)
            let expected = model.filter { $0.revision > since && !$0.changes.isEmpty }.map {
                ChangeSet(revision: $0.revision, changes: $0.changes.sorted { $0.key < $1.key })
            }
            if since >= Revision(oldest.rawValue - 1) {
                #expect(try store.changes(after: since).changeSets == expected, "since \(since)")
            } else {
                #expect(throws: StoreError.compacted(since: since, oldest: oldest)) { try store.changes(after: since) }
            }
        }
        // Every key keeps at least its last `historyPerKey` changes, exactly as they happened.
        for (k, events) in perKey {
            let kept = try store.history(of: k)
            #expect(kept.count >= min(historyPerKey, events.count), "\(k)")
            #expect(kept == Array(events.prefix(kept.count)), "\(k)")
        }
        // The cold key (6 changes) was written too rarely to be trimmed below historyPerKey.
        #expect(try store.history(of: key("cold")).count >= min(6, historyPerKey))
        try expectIntactHistoryChains(dir)
    }

    /// A key written a few times and then never again keeps its newest rows
    /// for good; passes leave them behind and go on trimming the others.
    @Test func aKeyNoLongerWrittenDoesNotHoldThePassesBack() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: 2)
        let (cold, hot) = (key("cold"), key("hot"))
        for i in 1...3 { try await store.write(WriteRequest(set: [cold: .integer(Int64(i))])) }
        for i in 4...1000 { try await store.write(WriteRequest(set: [hot: .integer(Int64(i))])) }
        #expect(try store.history(of: cold).map(\.revision) == [3, 2])
        // keep 2: a pass every 16 rows, and rows that must stay are left
        // behind once the window holds more than 256.
        let hotRows = try store.history(of: hot).map(\.revision.rawValue)
        #expect(hotRows.count >= 2 && hotRows.count <= 256 + 16 + 1, "\(hotRows.count) rows")
        #expect(hotRows == Array(((1001 - Int64(hotRows.count))...1000).reversed()))
        let oldest = try store.oldestCompleteRevision()
        #expect(oldest > 700)
        #expect(try store.changes(after: Revision(oldest.rawValue - 1)).changeSets.map(\.revision.rawValue)
            == Array(oldest.rawValue...1000))
        try expectIntactHistoryChains(dir)
    }

    @Test func compactionSurvivesARestartAndKeepsTheHorizon() async throws {
        let dir = try TemporaryDirectory()
        let oldest: Revision
        do {
            let store = try openStore(dir, historyPerKey: 2)
            // keep 2: a pass every 16 rows, at 17 and at 33.
            for i in 1...40 { try await store.write(WriteRequest(set: [key("a"): .integer(Int64(i))])) }
            oldest = try store.oldestCompleteRevision()
            #expect(oldest > 20)
        }
        let store = try openStore(dir, historyPerKey: 2)
        #expect(try store.oldestCompleteRevision() == oldest)
        #expect(throws: StoreError.compacted(since: 0, oldest: oldest)) { try store.changes(after: 0) }
        #expect(try store.changes(after: Revision(oldest.rawValue - 1)).changeSets.first?.revision == oldest)
    }
}
