import PropdCore
@testable import PropdStore
import Testing

/// History rows' ids (`schema/006_history_row_ids.sql`): a revision and a
/// place among the revision's rows, within their bounds.
@Suite struct HistoryRowIDTests {
    @Test func aRevisionsKeysTakeSlotsInTheOrderWrittenAndAKeyWrittenTwiceKeepsItsOwn() throws {
        let ids = HistoryRowIDs()
        #expect(try ids.id(of: "b", at: 7) == 7 << 18)
        #expect(try ids.id(of: "a", at: 7) == 7 << 18 | 1)
        #expect(try ids.id(of: "c", at: 7) == 7 << 18 | 2)
        #expect(try ids.id(of: "b", at: 7) == 7 << 18)
        #expect(try ids.id(of: "c", at: 7) == 7 << 18 | 2)
        // The next revision starts again at slot 0, whatever the keys.
        #expect(try ids.id(of: "a", at: 8) == 8 << 18)
        #expect(try ids.id(of: "b", at: 8) == 8 << 18 | 1)
        #expect(HistoryRowID.revision(of: 8 << 18 | 1) == 8)
    }

    @Test func aRevisionWithMoreRowsThanItsIdsHoldIsRefusedByName() throws {
        let ids = HistoryRowIDs()
        for index in 0..<HistoryRowID.rowsPerRevision { _ = try ids.id(of: "k\(index)", at: 1) }
        #expect(throws: StoreError.limitExceeded(limit: "history rows per revision", maximum: 262144)) {
            try ids.id(of: "one.more", at: 1)
        }
        // Keys it already holds keep their ids.
        #expect(try ids.id(of: "k262143", at: 1) == 1 << 18 | 262143)
    }

    @Test func aRequestWritingMoreRowsThanOneRevisionHoldsIsRolledBackAndChangesNothing() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("before"): 1]))
        let error = await storeError {
            try await store.write { tx in
                for index in 0...HistoryRowID.rowsPerRevision { try tx.set(try Key("k.\(index)"), .integer(Int64(index))) }
            }
        }
        #expect(error == .limitExceeded(limit: "history rows per revision", maximum: 262144))
        #expect(store.revision == 1)
        #expect(try store.keyCount() == 1)
        #expect(try store.changes(after: 1).changeSets.isEmpty)
        // The revision it did not take is the next write's.
        try await store.write { tx in
            try tx.set(key("k.1"), 1)
            try tx.set(key("k.0"), 0)
        }
        #expect(try store.changes(after: 1).changeSets == [
            ChangeSet(revision: 2, changes: [.set(key("k.0"), 0), .set(key("k.1"), 1)])
        ])
        try expectIntactHistoryChains(dir)
    }

    @Test func theLastRevisionWithIdsIsWrittenAndTheOneAfterIsRefusedByName() async throws {
        let dir = try TemporaryDirectory()
        try openStore(dir).close()
        try InspectedDatabase(dir.databasePath).execute(
            "UPDATE meta SET value = \(HistoryRowID.maxRevision - 1) WHERE name = 'revision'")
        let store = try openStore(dir)
        let last = try await store.write(WriteRequest(set: [key("a"): 1]))
        #expect(last.revision.rawValue == HistoryRowID.maxRevision)
        let error = await storeError { try await store.write(WriteRequest(set: [key("a"): 2])) }
        #expect(error == .limitExceeded(limit: "revisions", maximum: Int(HistoryRowID.maxRevision)))
        #expect(try store.get([key("a")]).properties.first??.value == 1)
        #expect(try store.history(of: key("a")).map(\.revision.rawValue) == [HistoryRowID.maxRevision])
        #expect(try store.changes(after: Revision(HistoryRowID.maxRevision - 1)).changeSets == [
            ChangeSet(revision: Revision(HistoryRowID.maxRevision), changes: [.set(key("a"), 1)])
        ])
        #expect(try store.changes(after: Revision(HistoryRowID.maxRevision)).changeSets.isEmpty)
        #expect(HistoryRowID.ids(of: HistoryRowID.maxRevision..<(HistoryRowID.maxRevision + 1)).upperBound == .max)
        store.close()
        #expect(try openStore(dir).revision.rawValue == HistoryRowID.maxRevision)
    }

    @Test func changesOfOneRevisionComeInKeyOrderWhateverOrderTheyWereWrittenIn() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write { tx in
            try tx.set(key("c"), 1)
            try tx.set(key("a"), 2)
            try tx.delete(key("c"))
            try tx.set(key("b"), 3)
        }
        #expect(try store.changes(after: 0).changeSets == [
            ChangeSet(revision: 1, changes: [.set(key("a"), 2), .set(key("b"), 3), .delete(key("c"))])
        ])
        try expectIntactHistoryChains(dir)
    }

    /// A history row is found among its revision's ids: a plan that scanned
    /// history, or indexed it by key for the query, would read the whole table.
    @Test func historyRowsAreFoundByTheirRevisionsIdsAlone() async throws {
        let dir = try TemporaryDirectory()
        try await openStore(dir).write(WriteRequest(set: [key("a"): 1]))
        let database = try InspectedDatabase(dir.databasePath)
        for sql in [
            HistoryChain.walk, "SELECT previous FROM history WHERE \(CompactionStatements.row)",
            "DELETE FROM history WHERE \(CompactionStatements.row)",
        ] {
            let plan = try database.rows("EXPLAIN QUERY PLAN \(sql)", columns: 4).compactMap { $0[3] }
            let reads = plan.filter { $0.contains("history") || $0.hasPrefix("SEARCH h ") || $0.hasPrefix("SCAN h ") }
            #expect(!reads.isEmpty, "\(plan)")
            #expect(reads.allSatisfy { $0.contains("USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(plan)")
        }
    }
}
