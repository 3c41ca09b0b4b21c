import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import PropdCore
import PropdStore
import PropdStoreTestSupport
import Synchronization
import Testing

/// Where and when a write commits, decided by the store from who wrote it
/// (``WriteOrigin``): a loop's lone writes at the end of its tick on that
/// loop, together, and a loop's pipelined writes too when it serves that
/// one connection (in `normal`); other pipelined writes on the writer's own
/// thread, woken at the end of the tick; everything else on the writer at once.
@Suite(.timeLimit(.minutes(1))) struct CommitPlacementTests {
    @Test func aLoopsLoneWritesCommitOnItAtTheEndOfItsTickTogether() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        let threads = CompletionThreads()
        submitSets(count: 3, to: store, from: { _ in loop.lone }, threads: threads, outcomes: outcomes)
        // One commit per loop and tick, however many writes the tick read.
        #expect(loop.scheduled == 1)
        #expect(store.revision == .none)

        threads.markCaller()
        loop.endTick()
        #expect(outcomes.revisions == [0: 1, 1: 2, 2: 3])
        #expect(threads.allOnCaller)
        let statistics = store.statistics
        #expect(statistics.batches == 1)
        #expect(statistics.inlineBatches == 1)
        #expect(statistics.largestBatch == 3)
    }

    @Test func eachLoopCommitsItsOwnTick() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let first = ManualLoop()
        let second = ManualLoop()
        store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: first.lone, completion: outcomes.completion(0)))
        store.submit(WriteSubmission({ tx in try tx.set(key("b"), 2) }, origin: second.lone, completion: outcomes.completion(1)))
        #expect(first.scheduled == 1)
        #expect(second.scheduled == 1)

        // The first tick to end takes every write pending, the other loop's too.
        first.endTick()
        #expect(outcomes.revisions == [0: 1, 1: 2])
        second.endTick()  // nothing left: a no-op
        #expect(store.statistics.batches == 1)
        // A new tick of the first loop schedules again.
        store.submit(WriteSubmission({ tx in try tx.set(key("c"), 3) }, origin: first.lone, completion: outcomes.completion(2)))
        #expect(first.scheduled == 1)
        first.endTick()
        #expect(outcomes.revisions[2] == 3)
    }

    @Test(arguments: [false, true])
    func aTickCommitsUpToItsLimitOfLoneWritesOnTheLoopAndALargerBurstOnTheWriter(overLimit: Bool) async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        let threads = CompletionThreads()
        let count = PropertyStore.tickCommitLimit + (overLimit ? 1 : 0)
        submitSets(count: count, to: store, from: { _ in loop.lone }, threads: threads, outcomes: outcomes)
        #expect(loop.scheduled == 1)
        threads.markCaller()
        loop.endTick()
        await outcomes.wait(for: count)
        #expect(outcomes.revisions == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, Revision(Int64($0 + 1))) }))
        let statistics = store.statistics
        #expect(statistics.batches == 1)
        #expect(statistics.largestBatch == count)
        if overLimit {
            #expect(threads.noneOnCaller)
            #expect(statistics.inlineBatches == 0)
        } else {
            #expect(threads.allOnCaller)
            #expect(statistics.inlineBatches == 1)
        }
    }

    /// A tick's commit on its loop sends its answers once all are given,
    /// before the work it does after them; a commit on the writer's thread
    /// hands its answers to their loops, which send them.
    @Test(arguments: [false, true])
    func aTicksCommitOnItsLoopSendsItsAnswersAsSoonAsAllAreGiven(overLimit: Bool) async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let answeredWhenSent = Mutex<[Int]>([])
        let loop = ManualLoop { answeredWhenSent.withLock { $0.append(outcomes.revisions.count) } }
        let count = PropertyStore.tickCommitLimit + (overLimit ? 1 : 0)
        submitSets(count: count, to: store, from: { _ in loop.lone }, threads: CompletionThreads(), outcomes: outcomes)
        loop.endTick()
        await outcomes.wait(for: count)
        #expect(answeredWhenSent.withLock { $0 } == (overLimit ? [] : [count]))
    }

    @Test func aPipeliningConnectionsWritesGoToTheWritersThreadAndShareABatch() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        // Hold the writer inside a batch, so the writes below queue behind it.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        store.submit(WriteSubmission({ tx in
            holding.signal()
            release.wait()
            try tx.set(key("held"), 0)
        }, origin: .thread, completion: outcomes.completion(-1)))
        holding.wait()

        let threads = CompletionThreads()
        threads.markCaller()
        submitSets(count: 5, to: store, from: { _ in .loop(loop, alone: false) }, threads: threads, outcomes: outcomes)
        // Not alone on its connection: the tick's end would wake the writer,
        // but the writer, busy, takes them first.
        #expect(loop.scheduled == 1)
        release.signal()
        await outcomes.wait(for: 6)

        #expect(outcomes.revisions == [-1: 1, 0: 2, 1: 3, 2: 4, 3: 5, 4: 6])
        #expect(threads.noneOnCaller)
        let statistics = store.statistics
        #expect(statistics.batches == 2)
        #expect(statistics.inlineBatches == 0)
        #expect(statistics.largestBatch == 5)
        loop.endTick()  // nothing left: a no-op
        #expect(store.statistics.batches == 2)
    }

    @Test func aPipeliningConnectionsWritesOfOneTickWakeTheWriterAtItsEndAsOneBatch() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop()
        let threads = CompletionThreads()
        threads.markCaller()
        // The first alone, the rest behind it: the tick may not commit on the loop.
        submitSets(count: 5, to: store, from: { .loop(loop, alone: $0 == 0) }, threads: threads, outcomes: outcomes)
        // Nothing starts before the tick's end, which commits on the writer.
        #expect(loop.scheduled == 1)
        #expect(store.statistics.batches == 0)
        loop.endTick()
        await outcomes.wait(for: 5)
        #expect(outcomes.revisions == [0: 1, 1: 2, 2: 3, 3: 4, 4: 5])
        #expect(threads.noneOnCaller)
        let statistics = store.statistics
        #expect(statistics.batches == 1)
        #expect(statistics.inlineBatches == 0)
        #expect(statistics.largestBatch == 5)
    }

    @Test func aPipeliningConnectionAloneOnItsLoopCommitsAllItsTickReadThere() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop(servesOneConnection: true)
        let threads = CompletionThreads()
        // More than a tick commits of lone writes on a loop serving others.
        let count = PropertyStore.tickCommitLimit + 8
        submitSets(count: count, to: store, from: { .loop(loop, alone: $0 == 0) }, threads: threads, outcomes: outcomes)
        #expect(loop.scheduled == 1)
        #expect(store.statistics.batches == 0)
        threads.markCaller()
        loop.endTick()
        #expect(outcomes.revisions == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, Revision(Int64($0 + 1))) }))
        #expect(threads.allOnCaller)
        let statistics = store.statistics
        #expect(statistics.batches == 1)
        #expect(statistics.inlineBatches == 1)
        #expect(statistics.largestBatch == count)
    }

    /// In `full` the loop reads the connection's next calls while the writer syncs.
    @Test func aPipeliningConnectionAloneOnItsLoopCommitsOnTheWriterInFull() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, durability: .full)
        let outcomes = Outcomes()
        let loop = ManualLoop(servesOneConnection: true)
        let threads = CompletionThreads()
        threads.markCaller()
        submitSets(count: 3, to: store, from: { .loop(loop, alone: $0 == 0) }, threads: threads, outcomes: outcomes)
        #expect(loop.scheduled == 1)
        loop.endTick()
        await outcomes.wait(for: 3)
        #expect(outcomes.revisions == [0: 1, 1: 2, 2: 3])
        #expect(threads.noneOnCaller)
        #expect(store.statistics.inlineBatches == 0)
    }

    @Test func aTasksWriteCommitsOnTheWriterWithoutWaitingForATick() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        #expect(try await store.write(WriteRequest(set: [key("a"): 1])).revision == 1)
        #expect(store.statistics.inlineBatches == 0)
        #expect(store.statistics.batches == 1)
    }

    @Test func aLoneWriteWithFullDurabilityNeverHoldsALoopServingOtherConnectionsForItsFsync() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, durability: .full)
        let outcomes = Outcomes()
        let loop = ManualLoop(servesOneConnection: false)
        store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: loop.lone, completion: outcomes.completion(0)))
        // The writer is woken at once: its fsync starts without waiting for the tick.
        #expect(loop.scheduled == 0)
        await outcomes.wait(for: 1)
        #expect(outcomes.revisions == [0: 1])
        #expect(store.statistics.inlineBatches == 0)
    }

    @Test func aLoneWriteWithFullDurabilityCommitsOnALoopServingOnlyItsConnection() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, durability: .full)
        let outcomes = Outcomes()
        let loop = ManualLoop(servesOneConnection: true)
        let threads = CompletionThreads()
        store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: loop.lone) {
            threads.record()
            outcomes.completion(0)($0)
        })
        #expect(loop.scheduled == 1)
        #expect(store.revision == .none)
        threads.markCaller()
        loop.endTick()
        #expect(outcomes.revisions == [0: 1])
        #expect(threads.allOnCaller)
        #expect(store.statistics.inlineBatches == 1)
    }

    @Test func aLoneWriteSubmittedOffItsLoopGoesToTheWriter() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = Outcomes()
        let loop = ManualLoop(isCurrent: false)
        store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: loop.lone, completion: outcomes.completion(0)))
        #expect(loop.scheduled == 0)
        await outcomes.wait(for: 1)
        #expect(outcomes.revisions == [0: 1])
        #expect(store.statistics.inlineBatches == 0)
    }

    @Test func aBatchsObserverAndAnswersRunInsideOneAnswerScope() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        // Each entry as it ran: "scope" where a scope began, "… outside" for what ran outside any.
        let log = Mutex<(inScope: Bool, entries: [String])>((false, []))
        @Sendable func note(_ entry: String) {
            log.withLock { $0.entries.append($0.inScope ? entry : "\(entry) outside") }
        }
        store.answerBatches(within: { answers in
            log.withLock { $0.inScope = true; $0.entries.append("scope") }
            answers()
            log.withLock { $0.inScope = false }
        })
        store.onCommit { changeSets in note("observer \(changeSets.map(\.revision.rawValue))") }
        let outcomes = Outcomes()
        let loop = ManualLoop()
        for i in 0..<2 {
            store.submit(WriteSubmission({ tx in try tx.set(key("k.\(i)"), 1) }, origin: loop.lone) { result in
                note("answer \(i)")
                outcomes.completion(i)(result)
            })
        }
        loop.endTick()
        #expect(log.withLock { $0.entries } == ["scope", "observer [1, 2]", "answer 0", "answer 1"])
        // The writer's thread answers inside the scope too.
        #expect(try await store.write(WriteRequest(set: [key("a"): 1])).revision == 3)
        #expect(log.withLock { $0.entries }.suffix(2) == ["scope", "observer [3]"])
    }
}

/// Submits Sets of `k.0` … `k.<count - 1>` to `store` in turn, the i-th
/// from `origin(i)`, each completion noted on `threads` and `outcomes`.
private func submitSets(
    count: Int, to store: PropertyStore, from origin: (Int) -> WriteOrigin, threads: CompletionThreads,
    outcomes: Outcomes
) {
    for i in 0..<count {
        store.submit(WriteSubmission({ tx in try tx.set(key("k.\(i)"), .integer(Int64(i))) }, origin: origin(i)) {
            threads.record()
            outcomes.completion(i)($0)
        })
    }
}

/// Which threads completions ran on, against the test's own.
final class CompletionThreads: Sendable {
    private struct State {
        var caller: pthread_t?
        var onCaller = 0
        var elsewhere = 0
    }

    private let state = Mutex(State())

    /// The calling thread is the test's.
    func markCaller() {
        let me = pthread_self()
        state.withLock { $0.caller = me }
    }

    /// A completion runs on the calling thread.
    func record() {
        let me = pthread_self()
        state.withLock { state in
            if let caller = state.caller, pthread_equal(caller, me) != 0 { state.onCaller += 1 } else { state.elsewhere += 1 }
        }
    }

    var allOnCaller: Bool { state.withLock { $0.elsewhere == 0 && $0.onCaller > 0 } }
    var noneOnCaller: Bool { state.withLock { $0.onCaller == 0 && $0.elsewhere > 0 } }
}
