import Foundation
import PropdCore
import PropdStore
import PropdStoreTestSupport
import Synchronization
import Testing

/// Writes committed at the end of a loop's tick (on the loop's thread), the
/// revision counter, and checkpoints between batches.
@Suite struct WriterThreadTests {
    /// Records a write's outcome, set from whatever thread completes it.
    final class Outcome: Sendable {
        let result = Mutex<Result<Committed<Void>, any Error>?>(nil)
        var revision: Revision? { result.withLock { try? $0?.get().revision } }
        var isPending: Bool { result.withLock { $0 == nil } }
    }

    func submitLone(_ store: PropertyStore, _ values: [Key: JSONValue], on loop: ManualLoop) -> Outcome {
        let outcome = Outcome()
        store.submit(WriteSubmission({ tx in try WriteRequest(set: values).apply(to: &tx) }, rollback: .validatesFirst, origin: loop.lone) { result in
            outcome.result.withLock { $0 = result }
        })
        return outcome
    }

    @Test func aLoneWriteWaitsForTheEndOfTheTickWhichCommitsAndAnswersOnTheLoopsThread() throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let loop = ManualLoop()
        let first = submitLone(store, [key("a"): 1], on: loop)
        let second = submitLone(store, [key("b"): 2], on: loop)
        // Nothing woke the writer: both still wait, and nothing is visible.
        #expect(first.isPending && second.isPending)
        #expect(store.revision == .none)
        #expect(try store.get([key("a")]).properties == [nil])

        loop.endTick()
        // Answered before the tick ended, in submission order, in one transaction.
        #expect(first.revision == Revision(1))
        #expect(second.revision == Revision(2))
        #expect(store.statistics.batches == 1)
        #expect(store.statistics.inlineBatches == 1)
        #expect(try store.get([key("a"), key("b")]).properties.map { $0?.value } == [1, 2])
    }

    @Test func aBurstOfLoneWritesIsCommittedOnTheWritersThreadInOrder() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let count = 9
        let loop = ManualLoop()
        let revisions = try await withThrowingTaskGroup(of: (Int, Revision).self) { group in
            let submitted = AsyncStream<Void>.makeStream()
            var queued = submitted.stream.makeAsyncIterator()
            for n in 0..<count {
                group.addTask {
                    let revision = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Revision, any Error>) in
                        store.submit(WriteSubmission({ tx in try tx.set(key("a"), .integer(Int64(n))) }, origin: loop.lone) { result in
                            continuation.resume(with: result.map(\.revision))
                        })
                        submitted.continuation.yield()
                    }
                    return (n, revision)
                }
                // One at a time, so that they queue in the order of `n`.
                _ = await queued.next()
            }
            loop.endTick()
            var revisions: [Int: Revision] = [:]
            for try await (n, revision) in group { revisions[n] = revision }
            return revisions
        }
        #expect((0..<count).map { revisions[$0] } == (1...count).map { Revision(Int64($0)) })
        #expect(try store.get([key("a")]).properties.first??.value == .integer(Int64(count - 1)))
    }

    @Test func aWriteFromATaskTakesTheLoopsWritesBeforeItAlong() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let loop = ManualLoop()
        let lone = submitLone(store, [key("a"): 1], on: loop)
        let later = try await store.write(WriteRequest(set: [key("a"): 2]))
        #expect(lone.revision == Revision(1))
        #expect(later.revision == Revision(2))
        #expect(store.statistics.inlineBatches == 0)
        #expect(try store.get([key("a")]).properties.first??.value == 2)
        loop.endTick()  // nothing left: a no-op
        #expect(store.revision == Revision(2))
    }

    @Test func closingCommitsTheLoopsWritesStillQueued() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let revision = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Revision, any Error>) in
            store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: ManualLoop().lone) { result in
                continuation.resume(with: result.map(\.revision))
            })
            store.close()
        }
        #expect(revision == Revision(1))
    }

    @Test func aStoreClosedWhileItsLoopNeverEndsTheTickClosesItsFileOnceReleased() async throws {
        let dir = try TemporaryDirectory()
        let loop = ManualLoop()  // its tick never ends: the commit it was handed never runs
        do {
            let store = try openStore(dir)
            let revision = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Revision, any Error>) in
                store.submit(WriteSubmission({ tx in try tx.set(key("a"), 1) }, origin: loop.lone) { result in
                    continuation.resume(with: result.map(\.revision))
                })
                store.close()
            }
            #expect(revision == Revision(1))
            #expect(loop.scheduled == 1)
        }
        // Released, the store closes its files once the writer's last drain
        // has let go of it (bounded wait; the suite's runs take milliseconds).
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while !openFiles(under: dir.databasePath).isEmpty, ContinuousClock.now < deadline { await Task.yield() }
        #expect(openFiles(under: dir.databasePath) == [])
    }

    @Test func theRevisionOfAWriteThatChangedNothingSurvivesAReopen() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            try await store.write(WriteRequest(set: [key("a"): 1]))
            let empty = try await store.write { _ in }
            #expect(empty.revision == Revision(2))
            #expect(try store.get([key("a")]).revision == Revision(2))
        }
        let reopened = try openStore(dir)
        #expect(reopened.revision == Revision(2))
        #expect(try reopened.list().revision == Revision(2))
        let next = try await reopened.write(WriteRequest(set: [key("a"): 3]))
        #expect(next.revision == Revision(3))
    }

    @Test func theRevisionOfTheLastChangeSurvivesAReopen() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            _ = try await store.write { _ in }
            for value in 1...5 { try await store.write(WriteRequest(set: [key("a"): .integer(Int64(value))])) }
            #expect(store.revision == Revision(6))
        }
        let reopened = try openStore(dir)
        #expect(reopened.revision == Revision(6))
        #expect(try reopened.get([key("a")]).revision == Revision(6))
    }

    @Test func theWriterCopiesTheLogIntoTheDatabaseBetweenBatches() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let before = try fileSize(dir.databasePath)
        // ~1,200 pages of 4 KiB in the log: over the 1,000-page threshold.
        let big = JSONValue.string(String(repeating: "x", count: 3000))
        for n in 0..<400 {
            try await store.write(WriteRequest(set: [key("k.\(n)"): big, key("l.\(n)"): big]))
        }
        // The clean-stop checkpoint, queued after the writer's own.
        try store.checkpoint()
        #expect(store.statistics.backgroundCheckpoints >= 1)
        #expect(try fileSize(dir.databasePath) > before + 1_000_000)
        #expect(try fileSize(dir.databasePath + "-wal") == 0)
        #expect(try store.list(pattern: KeyPattern("k.*")).properties.count == 400)
    }

    /// The files this process holds open whose path starts with `prefix`.
    private func openFiles(under prefix: String) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix(prefix)
            else { return nil }
            return target
        }
    }

    private func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }
}
