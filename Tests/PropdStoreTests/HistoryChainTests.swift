import Foundation
import PropdCore
import PropdStore
import Testing

/// History as per-key chains (`schema/003_history_chain.sql`): reads, writes
/// that relink a chain, compaction along it.
@Suite struct HistoryChainTests {
    @Test func aKeyDeletedAndSetAgainKeepsOneHistory() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let a = key("a")
        try await store.write(WriteRequest(set: [a: 1]))  // 1
        try await store.write(WriteRequest(delete: [a]))  // 2
        try await store.write(WriteRequest(set: [key("b"): 1]))  // 3
        try await store.write(WriteRequest(set: [a: 4]))  // 4
        try await store.write(WriteRequest(set: [a: 5], delete: [a]))  // 5: delete then set, one row
        try await store.write { tx in  // 6: set, delete, set again: one row, the last change
            try tx.set(a, 60)
            try tx.delete(a)
            try tx.set(a, 6)
        }
        try await store.write(WriteRequest(delete: [a]))  // 7
        #expect(try store.history(of: a) == [
            Event(key: "a", kind: .delete, revision: 7),
            Event(key: "a", kind: .set, value: 6, revision: 6),
            Event(key: "a", kind: .set, value: 5, revision: 5),
            Event(key: "a", kind: .set, value: 4, revision: 4),
            Event(key: "a", kind: .delete, revision: 2),
            Event(key: "a", kind: .set, value: 1, revision: 1),
        ])
        try expectIntactHistoryChains(dir)
    }

    @Test func aDerivedKeyDeclaredAgainAfterItsDeleteContinuesItsHistory() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let d = key("d")
        try await store.write { tx in try tx.set(d, 1) }  // 1
        try await store.write { tx in try tx.delete(d) }  // 2
        try await store.write { tx in _ = try tx.declareDerived(d) }  // 3: no history
        #expect(try store.history(of: d).map(\.revision) == [2, 1])
        try await store.write { tx in try tx.setError(d, "no source") }  // 4
        try await store.write { tx in try tx.set(d, 5) }  // 5
        #expect(try store.history(of: d) == [
            Event(key: "d", kind: .set, value: 5, revision: 5),
            Event(key: "d", kind: .error, revision: 4, error: "no source"),
            Event(key: "d", kind: .delete, revision: 2),
            Event(key: "d", kind: .set, value: 1, revision: 1),
        ])
        // Declared and given a value in one revision, after a delete.
        try await store.write { tx in try tx.delete(d) }  // 6
        try await store.write { tx in  // 7
            _ = try tx.declareDerived(d)
            try tx.set(d, 7)
        }
        #expect(try store.history(of: d).map(\.revision) == [7, 6, 5, 4, 2, 1])
        // A key declared without a value, then deleted (an unbind): only the delete.
        let e = key("e")
        try await store.write { tx in _ = try tx.declareDerived(e) }  // 8
        try await store.write { tx in try tx.delete(e) }  // 9
        try await store.write { tx in try tx.set(e, 10) }  // 10
        #expect(try store.history(of: e).map(\.revision) == [10, 9])
        try expectIntactHistoryChains(dir)
    }

    @Test func historyWithBeforeAndLimitWalksPastNewerRows() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let a = key("a")
        for i in 1...10 {
            // a at odd revisions, deleted at 9; b at even ones.
            if i == 9 {
                try await store.write(WriteRequest(delete: [a]))
            } else {
                try await store.write(WriteRequest(set: [i % 2 == 1 ? a : key("b"): .integer(Int64(i))]))
            }
        }
        try await store.write(WriteRequest(set: [a: 11]))
        #expect(try store.history(of: a).map(\.revision) == [11, 9, 7, 5, 3, 1])
        #expect(try store.history(of: a, before: 9).map(\.revision) == [7, 5, 3, 1])
        #expect(try store.history(of: a, before: 8).map(\.revision) == [7, 5, 3, 1])
        #expect(try store.history(of: a, limit: 2, before: 8).map(\.revision) == [7, 5])
        #expect(try store.history(of: a, limit: 1, before: 10).map(\.revision) == [9])
        #expect(try store.history(of: a, limit: 3).map(\.revision) == [11, 9, 7])
        #expect(try store.history(of: a, before: 100).map(\.revision) == [11, 9, 7, 5, 3, 1])
        #expect(try store.history(of: a, before: 1) == [])
        #expect(try store.history(of: a, limit: 0) == [])
        #expect(try store.history(of: a, limit: -1).count == 6, "a negative limit is no limit, as SQL's LIMIT")
        #expect(try store.history(of: key("b"), limit: 2, before: 5).map(\.revision) == [4, 2])
    }

    @Test func aPassKeepsTheLastEntriesAlongTheChainAlsoAfterARestart() async throws {
        let dir = try TemporaryDirectory()
        let a = key("a")
        do {
            // keep 4: a pass every 32 rows. The batch after the 32nd (33)
            // removes every row with 4 newer among the 32 (1 to 28).
            let store = try openStore(dir, historyPerKey: 4)
            try await setEach(store, a, to: 1...40)
            #expect(try store.history(of: a).map(\.revision.rawValue) == Array((29...40).reversed()))
            #expect(try store.oldestCompleteRevision() == 29)
            #expect(try historyRowCount(dir, a) == 12)
        }
        // After a restart nothing is remembered: 32 rows later (73), the pass
        // removes 41 to 68, and the rows behind 41 along the chain (29 to 40).
        let store = try openStore(dir, historyPerKey: 4)
        try await setEach(store, a, to: 41...73)
        #expect(try store.history(of: a).map(\.revision) == [73, 72, 71, 70, 69])
        #expect(try historyRowCount(dir, a) == 5)
        #expect(try store.oldestCompleteRevision() == 69)
        try expectIntactHistoryChains(dir)
    }

    @Test func aPassRemovesEveryKeysOlderRowsAndThoseFromBeforeARestart() async throws {
        let dir = try TemporaryDirectory()
        let (a, b) = (key("a"), key("b"))
        // A floor at revision 0 holds every trim back, so the key's rows pile up.
        let nothingRemoved: @Sendable () -> Revision? = { Revision(0) }
        do {
            let store = try openStore(dir, historyPerKey: 2)
            store.retainHistory(after: nothingRemoved)
            for i in 1...10 {  // a at 1, 3, ..., 19; b at 2, 4, ..., 20
                try await store.write(WriteRequest(set: [a: .integer(Int64(i))]))
                try await store.write(WriteRequest(set: [b: .integer(Int64(i))]))
            }
        }
        let store = try openStore(dir, historyPerKey: 2)
        store.retainHistory(after: nothingRemoved)
        for i in 11...20 {  // a at 21, ..., 39; b at 22, ..., 40
            try await store.write(WriteRequest(set: [a: .integer(Int64(i))]))
            try await store.write(WriteRequest(set: [b: .integer(Int64(i))]))
        }
        #expect(try historyRowCount(dir, b) == 20)
        store.retainHistory(after: nil)
        // keep 2: a pass every 16 rows. The one held back at 37 reset the
        // count; c's writes at 41 to 52 make 16 more, so c's 13th write (53)
        // runs the next: from 21, every row with 2 newer of its key goes in
        // one range (21 to 36), and behind each key's first one, along its
        // chain, its rows from before the restart. The pass stops at a's 37,
        // one of a's 2 newest.
        try await setEach(store, key("c"), to: 41...53)
        #expect(try store.history(of: a).map(\.revision) == [39, 37])
        #expect(try store.history(of: b).map(\.revision) == [40, 38])
        #expect(try historyRowCount(dir, a) == 2)
        #expect(try historyRowCount(dir, b) == 2)
        #expect(try historyRowCount(dir, key("c")) == 13)
        #expect(try store.oldestCompleteRevision() == 37)
        try expectIntactHistoryChains(dir)
    }

    @Test func aLargerHistoryPerKeyRemovesNoRowItKeeps() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: 4)
        let a = key("a")
        try await setEach(store, a, to: 1...40)
        #expect(try historyRowCount(dir, a) == 12)
        // 40 per key now: fewer than that exist, so nothing may go.
        store.setHistoryPerKey(40)
        try await setEach(store, a, to: 41...60)
        #expect(try historyRowCount(dir, a) == 32)
        // A pass every 320 rows: the one at 353 keeps the 40 newest of 29 to 352.
        try await setEach(store, a, to: 61...400)
        #expect(try store.history(of: a).map(\.revision.rawValue) == Array((313...400).reversed()))
        try expectIntactHistoryChains(dir)
    }

    @Test func aSmallerHistoryPerKeyTrimsAtTheNextPass() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: 100)
        let a = key("a")
        try await setEach(store, a, to: 1...30)
        store.setHistoryPerKey(4)
        try await setEach(store, a, to: 31...40)
        // A pass every 32 rows now: the batch at 33 keeps the 4 newest of 1 to 32.
        #expect(try historyRowCount(dir, a) == 12)
        #expect(try store.history(of: a).map(\.revision.rawValue) == Array((29...40).reversed()))
        try expectIntactHistoryChains(dir)
    }

    @Test func compactionKeepsADeletedKeysChainAndDropsStaleDeletedHeads() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: 2)
        let (a, b) = (key("a"), key("b"))
        for i in 1...6 { try await store.write(WriteRequest(set: [a: .integer(Int64(i)), b: .integer(Int64(i))])) }
        try await store.write(WriteRequest(delete: [a, b]))  // 7
        try await setEach(store, b, to: 8...12)
        // keep 2: a pass every 16 rows, here at 10 over revisions 1 to 9,
        // which removes 1 to 5 and stops at a's 6, one of its 2 newest.
        // a: deleted, trimmed to its last entries, its chain still found from deleted_heads.
        #expect(try store.history(of: a).map(\.kind) == [.delete, .set])
        #expect(try store.history(of: a).first?.revision == 7)
        // b: set again after its delete and trimmed since: its deleted_heads row went.
        #expect(try store.history(of: b).map(\.revision) == [12, 11, 10, 9, 8, 7, 6])
        #expect(try InspectedDatabase(dir.databasePath).strings("SELECT key FROM deleted_heads ORDER BY key") == ["a"])
        try expectIntactHistoryChains(dir)
    }

    @Test func aRolledBackRequestLeavesTheChainsAsTheyWere() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let a = key("a")
        try await store.write(WriteRequest(set: [a: 1]))
        await #expect(throws: BodyFailed.self) {
            try await store.write { tx in
                try tx.set(a, 2)
                try tx.delete(a)
                throw BodyFailed()
            }
        }
        // The failed body consumed no revision: this one is 2 again.
        try await store.write(WriteRequest(set: [a: 2]))
        #expect(try store.history(of: a).map(\.revision) == [2, 1])
        try expectIntactHistoryChains(dir)
    }

    @Test func aBatchLostToAFullDiskLeavesTheChainsAsTheyWere() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, maximumDatabaseBytes: 256 * 1024)
        let a = key("a")
        try await store.write(WriteRequest(set: [a: 1]))
        // `a` is written at revision 2, then the batch fails on the next key.
        let failure = await storeError {
            try await store.write { tx in
                try tx.set(a, 2)
                try tx.set(key("big"), .string(String(repeating: "x", count: 512 * 1024)))
            }
        }
        guard case .diskFull = failure else {
            Issue.record("expected diskFull, got \(String(describing: failure))")
            return
        }
        // Revision 2 again: its row must link to revision 1, the head that committed.
        try await store.write(WriteRequest(set: [a: 2]))
        #expect(try store.history(of: a).map(\.revision) == [2, 1])
        try expectIntactHistoryChains(dir)
    }

    @Test(.timeLimit(.minutes(1))) func aDamagedChainEndsTheWalkInsteadOfLooping() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: 2)
        let a = key("a")
        try await setEach(store, a, to: 1...3)
        // Damage the file from outside: the oldest row points at the newest.
        try InspectedDatabase(dir.databasePath).execute("UPDATE history SET previous = 3 WHERE id >> 18 = 1 AND key = 'a'")
        #expect(try store.history(of: a).map(\.revision) == [3, 2, 1])
        // A pass reads it too (at 17, from a's first row): it ends as well.
        try await setEach(store, a, to: 4...20)
        #expect(try store.history(of: a).first?.revision == 20)
        #expect(try store.oldestCompleteRevision() == 15)
    }

    /// Sets `key` to each value in turn, one revision each.
    func setEach(_ store: PropertyStore, _ key: Key, to values: ClosedRange<Int64>) async throws {
        for value in values { try await store.write(WriteRequest(set: [key: .integer(value)])) }
    }

    func historyRowCount(_ dir: TemporaryDirectory, _ key: Key) throws -> Int {
        Int(try InspectedDatabase(dir.databasePath).int64("SELECT count(*) FROM history WHERE key = ?", key.rawValue) ?? -1)
    }
}
