import PropdCore
import PropdStore
import PropdStoreTestSupport
import Synchronization
import Testing

/// The group-commit writer's batches, made deterministic with requests from
/// a hand-run event loop: nothing commits until the loop's tick ends, and
/// then exactly the requests queued so far form the batches.
@Suite(.timeLimit(.minutes(1))) struct BatchBoundaryTests {
    @Test func loneRequestsOfALoopWaitForTheEndOfItsTickThenCommitOnTheLoopAsOneBatch() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        for i in 0..<3 {
            store.submit(WriteSubmission({ tx in try tx.set(key("k.\(i)"), .integer(Int64(i))) }, origin: loop.lone, completion: outcomes.completion(i)))
        }
        #expect(outcomes.count == 0)
        #expect(store.revision == .none)
        #expect(store.statistics.batches == 0)

        loop.endTick()
        // Committed on this thread: every caller is answered before the tick ends.
        #expect(outcomes.revisions == [0: 1, 1: 2, 2: 3])
        let statistics = store.statistics
        #expect(statistics.batches == 1)
        #expect(statistics.inlineBatches == 1)
        #expect(statistics.largestBatch == 3)
        #expect(try store.list().properties.map(\.key) == [key("k.0"), key("k.1"), key("k.2")])
    }

    @Test func aBurstPastTheInlineLimitGoesToTheWriterInBatchesOfAtMostMaximumBatch() async throws {
        let dir = try TemporaryDirectory()
        let store = try PropertyStore(
            path: dir.databasePath, configuration: StoreConfiguration(durability: .normal, maximumBatch: 2))
        let outcomes = Outcomes()
        let loop = ManualLoop()
        let count = PropertyStore.tickCommitLimit + 1
        for i in 0..<count {
            store.submit(WriteSubmission({ tx in try tx.set(key("k.\(i)"), .integer(Int64(i))) }, origin: loop.lone, completion: outcomes.completion(i)))
        }
        loop.endTick()
        await outcomes.wait(for: count)
        // In submission order, one revision each, in batches of 2 and a last of 1.
        #expect(outcomes.revisions == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, Revision(Int64($0 + 1))) }))
        let statistics = store.statistics
        #expect(statistics.batches == (count + 1) / 2)
        #expect(statistics.inlineBatches == 0)
        #expect(statistics.largestBatch == 2)
        #expect(statistics.requests == count)
    }

    @Test func aRejectedBodyConsumesNoRevisionAndItsNeighboursCommitInTheSameBatch() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: loop.lone, completion: outcomes.completion(0)))
        store.submit(WriteSubmission({ tx in
            try tx.set(key("b"), 2)
            throw BodyRefused()
        }, origin: loop.lone, completion: outcomes.completion(1)))
        store.submit(WriteSubmission({ tx in try tx.set(key("c"), 3) }, origin: loop.lone, completion: outcomes.completion(2)))
        loop.endTick()

        #expect(outcomes.revisions == [0: 1, 2: 2])
        #expect(outcomes.error(1) is BodyRefused)
        #expect(try store.get([key("a"), key("b"), key("c")]).properties.map { $0?.revision } == [1, nil, 2])
        let statistics = store.statistics
        #expect(statistics.batches == 1)
        #expect(statistics.rejected == 1)
    }

    @Test func aBodyWithoutSavepointThatFailsAfterWritingAbandonsItsWholeBatch() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: loop.lone, completion: outcomes.completion(0)))
        // Promised to fail only before writing, and broke the promise: nothing
        // of it can be rolled back alone, so nothing of the batch is kept.
        store.submit(WriteSubmission({ tx in
            try tx.set(key("b"), 2)
            throw BodyRefused()
        }, rollback: .validatesFirst, origin: loop.lone, completion: outcomes.completion(1)))
        loop.endTick()

        guard case .storage = outcomes.error(0) as? StoreError else {
            Issue.record("the batch's other request was not failed with the storage error: \(String(describing: outcomes.error(0)))")
            return
        }
        #expect(outcomes.error(1) is BodyRefused)
        #expect(store.revision == .none)
        #expect(try store.keyCount() == 0)
        #expect(store.statistics.failedBatches == 1)
        // The writer goes on with the next batch.
        #expect(try await store.write(WriteRequest(set: [key("c"): 3])).revision == 1)
    }

    @Test func aBodyWithoutSavepointThatOpensOneBeforeWritingIsRolledBackAloneAndItsNeighboursCommit() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: loop.lone, completion: outcomes.completion(0)))
        // Found, before its first write, that it could fail after it.
        store.submit(WriteSubmission({ tx in
            try tx.openSavepoint()
            try tx.set(key("b"), 2)
            try tx.openSavepoint()  // a second call changes nothing
            throw BodyRefused()
        }, rollback: .validatesFirst, origin: loop.lone, completion: outcomes.completion(1)))
        store.submit(WriteSubmission({ tx in
            try tx.openSavepoint()
            try tx.set(key("c"), 3)
        }, rollback: .validatesFirst, origin: loop.lone, completion: outcomes.completion(2)))
        store.submit(WriteSubmission({ tx in try tx.set(key("d"), 4) }, rollback: .validatesFirst, origin: loop.lone, completion: outcomes.completion(3)))
        loop.endTick()

        #expect(outcomes.revisions == [0: 1, 2: 2, 3: 3])
        #expect(outcomes.error(1) is BodyRefused)
        #expect(try store.get([key("a"), key("b"), key("c"), key("d")]).properties.map { $0?.revision } == [1, nil, 2, 3])
        #expect(try store.history(of: key("b")) == [])
        let statistics = store.statistics
        #expect(statistics.batches == 1)
        #expect(statistics.failedBatches == 0)
        #expect(statistics.rejected == 1)
        try expectIntactHistoryChains(dir)
    }
}

struct BodyRefused: Error {}

/// The outcomes of submitted requests by submission index, and a wait for them.
final class Outcomes: Sendable {
    private let results = Mutex<[Int: Result<Revision, any Error>]>([:])
    private let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation

    init() {
        (arrivals, arrived) = AsyncStream.makeStream()
    }

    func completion<T>(_ index: Int) -> @Sendable (Result<Committed<T>, any Error>) -> Void {
        { result in
            self.results.withLock { $0[index] = result.map(\.revision) }
            self.arrived.yield()
        }
    }

    var count: Int { results.withLock { $0.count } }

    /// The revision of each request that committed.
    var revisions: [Int: Revision] {
        results.withLock { $0.compactMapValues { try? $0.get() } }
    }

    func error(_ index: Int) -> (any Error)? {
        results.withLock { results in
            guard case .failure(let error) = results[index] else { return nil }
            return error
        }
    }

    /// Returns once `count` requests have their outcome (the suite's time limit bounds the wait).
    func wait(for count: Int) async {
        for await _ in arrivals where self.count >= count { return }
    }
}
