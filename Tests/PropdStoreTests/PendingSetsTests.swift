import PropdCore
import PropdStore
import PropdStoreTestSupport
import Synchronization
import Testing

/// The Sets a batch holds back to write together (`PendingSets`): a Set of
/// a key whose history head the writer knows waits for the next SQL of its
/// batch. Every later read and change of the batch, a savepoint and the
/// commit must come after it, exactly as if it had been written at once.
/// The requests validate before they write, as a client's Set does (no
/// savepoint of their own), unless a savepoint is the point.
@Suite(.timeLimit(.minutes(1))) struct PendingSetsTests {
    @Test func setsHeldBackAreWrittenBeforeEveryLaterReadAndChangeOfTheirBatch() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        // The writer learns both heads: their later Sets are held back.
        #expect(try await store.write(WriteRequest(set: [key("a"): 0, key("b"): 0])).revision == 1)

        let outcomes = Outcomes()
        let seen = Mutex<[JSONValue?]>([])
        let loop = ManualLoop()
        let requests: [(rollback: WriteRollback, body: @Sendable (inout WriteTransaction) throws -> Void)] = [
            (.validatesFirst, { tx in try tx.set(key("a"), 1) }),
            (.validatesFirst, { tx in
                // A read after a held Set of the same batch sees it.
                let value = try tx.property(key("a"))?.value
                let revision = try tx.revision(of: key("a"))
                seen.withLock { $0 = [value, .integer(revision.rawValue)] }
                try tx.set(key("b"), 10)
            }),
            (.validatesFirst, { tx in
                // Twice in one revision: one history row, the later value.
                try tx.set(key("a"), 2)
                try tx.set(key("a"), 3)
            }),
            // A change other than a Set: b's held Set is written first.
            (.validatesFirst, { tx in try tx.delete(key("b")) }),
            // Held again, linked to the delete.
            (.validatesFirst, { tx in try tx.set(key("b"), 20) }),
            (.savepoint, { tx in
                // Its savepoint comes after b's held Set, which stays; its
                // own held Set goes with the rollback.
                try tx.set(key("a"), 4)
                throw BodyRefused()
            }),
            (.validatesFirst, { tx in try tx.set(key("b"), 30) }),
        ]
        for (index, request) in requests.enumerated() {
            store.submit(
                WriteSubmission(
                    request.body, rollback: request.rollback, origin: loop.lone, completion: outcomes.completion(index)))
        }
        loop.endTick()
        await outcomes.wait(for: requests.count)

        #expect(outcomes.revisions == [0: 2, 1: 3, 2: 4, 3: 5, 4: 6, 6: 7])
        #expect(outcomes.error(5) is BodyRefused)
        #expect(seen.withLock { $0 } == [1, 2])
        #expect(store.statistics.batches == 2)
        #expect(try store.get([key("a"), key("b")]).properties.map { $0?.value } == [3, 30])
        #expect(try store.history(of: key("a")) == [
            Event(key: "a", kind: .set, value: 3, revision: 4),
            Event(key: "a", kind: .set, value: 1, revision: 2),
            Event(key: "a", kind: .set, value: 0, revision: 1),
        ])
        #expect(try store.history(of: key("b")) == [
            Event(key: "b", kind: .set, value: 30, revision: 7),
            Event(key: "b", kind: .set, value: 20, revision: 6),
            Event(key: "b", kind: .delete, revision: 5),
            Event(key: "b", kind: .set, value: 10, revision: 3),
            Event(key: "b", kind: .set, value: 0, revision: 1),
        ])
        try expectIntactHistoryChains(dir)
    }

    /// More Sets than one statement writes, keys repeated among them and a
    /// count that is no power of two: every value and history row lands, in
    /// order, in one batch.
    @Test func aBatchOfManyHeldSetsKeepsEveryRowInOrder() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, historyPerKey: 1000)
        let keys = (0..<3).map { key("k.\($0)") }
        #expect(try await store.write(WriteRequest(set: Dictionary(uniqueKeysWithValues: keys.map { ($0, 0) }))).revision == 1)

        let outcomes = Outcomes()
        let loop = ManualLoop()
        let count = 3 * PendingSetsTests.statementRows + 11
        for i in 0..<count {
            let written = keys[i % keys.count]
            store.submit(
                WriteSubmission(
                    { tx in try tx.set(written, .integer(Int64(i + 1))) }, rollback: .validatesFirst, origin: loop.lone,
                    completion: outcomes.completion(i)))
        }
        loop.endTick()
        await outcomes.wait(for: count)

        #expect(outcomes.revisions == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, Revision(Int64($0 + 2))) }))
        #expect(store.statistics.largestBatch == count)
        for (index, written) in keys.enumerated() {
            let values = (0..<count).filter { $0 % keys.count == index }.map { Int64($0 + 1) }
            #expect(try store.history(of: written).map(\.value) == (values.reversed() + [0]).map { JSONValue?.some(.integer($0)) })
            #expect(try store.get([written]).properties.first??.value == .integer(values.last ?? 0))
        }
        try expectIntactHistoryChains(dir)
    }

    /// As `PendingSets.statementRows`: enough Sets to take more than one
    /// statement of the largest size.
    static let statementRows = 64

    /// The database reaches its size limit while the held Sets are written:
    /// the whole batch fails with the named error, none of it is kept, and
    /// the writer goes on.
    @Test func aFailureWritingTheHeldSetsFailsTheirWholeBatch() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, maximumDatabaseBytes: 256 * 1024)
        #expect(try await store.write(WriteRequest(set: [key("a"): 0])).revision == 1)

        let outcomes = Outcomes()
        let loop = ManualLoop()
        // Each Set is held (a's head is known); together they pass the limit.
        let large = JSONValue.string(String(repeating: "x", count: 8 * 1024))
        let count = 40
        for i in 0..<count {
            store.submit(
                WriteSubmission(
                    { tx in try tx.set(key("a"), large) }, rollback: .validatesFirst, origin: loop.lone,
                    completion: outcomes.completion(i)))
        }
        loop.endTick()
        await outcomes.wait(for: count)

        for i in 0..<count {
            guard case .diskFull = outcomes.error(i) as? StoreError else {
                Issue.record("request \(i) was not failed as disk full: \(String(describing: outcomes.error(i)))")
                return
            }
        }
        #expect(store.revision == 1)
        #expect(try store.history(of: key("a")) == [Event(key: "a", kind: .set, value: 0, revision: 1)])
        #expect(store.statistics.failedBatches == 1)
        #expect(try await store.write(WriteRequest(set: [key("a"): 2])).revision == 2)
        try expectIntactHistoryChains(dir)
    }
}
