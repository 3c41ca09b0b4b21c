import PropdCore
import PropdStore
import Synchronization
import Testing

/// A request handed to the store as its own object
/// (`submit(_:rollback:origin:)`, how the service queues a Set): it is run
/// once and then finished once, or only told it failed, and what it wrote
/// commits or rolls back as a submission's body would.
@Suite struct QueuedWriteTests {
    /// Writes "written" to its key, then throws if asked to; records what befell it.
    final class RecordedWrite: QueuedWrite {
        enum Fate: Equatable { case committed(Revision), threw, failed(String) }

        let key: Key
        let throwsAfterWriting: Bool
        let runs = Atomic(0)
        /// Everything it was told, in order.
        let told = Mutex<[Fate]>([])
        private let telling: AsyncStream<Fate>.Continuation
        private let fates: AsyncStream<Fate>

        init(_ key: Key, throwsAfterWriting: Bool = false) {
            self.key = key
            self.throwsAfterWriting = throwsAfterWriting
            (fates, telling) = AsyncStream.makeStream(of: Fate.self)
        }

        func run(_ transaction: inout WriteTransaction) -> Bool {
            runs.add(1, ordering: .relaxed)
            do {
                try transaction.set(key, .string("written"))
                if throwsAfterWriting { throw StoreError.storage(code: 1, message: "the body gave up") }
                return true
            } catch {
                tell(.threw)
                return false
            }
        }

        func finish(_ outcome: Result<ChangeSet, any Error>) {
            switch outcome {
            case .success(let changeSet): tell(.committed(changeSet.revision))
            case .failure(let error): tell(.failed("\(error)"))
            }
        }

        func fail(_ error: any Error) {
            tell(.failed("\(error)"))
        }

        private func tell(_ fate: Fate) {
            told.withLock { $0.append(fate) }
            telling.yield(fate)
        }

        /// What befell it first, once it is told.
        func firstFate() async -> Fate? {
            for await fate in fates { return fate }
            return nil
        }
    }

    @Test func aWriteObjectIsRunOnceAndFinishedAtItsRevision() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, durability: .normal)
        let write = RecordedWrite(key("a"))
        store.submit(write, rollback: .validatesFirst, origin: .thread)
        #expect(await write.firstFate() == .committed(1))
        #expect(write.runs.load(ordering: .relaxed) == 1)
        #expect(write.told.withLock { $0 } == [.committed(1)])
        #expect(try store.get([key("a")]).properties.first??.value == .string("written"))
    }

    @Test func aBodyThatThrowsIsRolledBackAloneAndConsumesNoRevision() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, durability: .normal)
        let failing = RecordedWrite(key("failing"), throwsAfterWriting: true)
        let next = RecordedWrite(key("next"))
        // Submitted one after the other from one thread: they may share a batch.
        store.submit(failing, rollback: .savepoint, origin: .thread)
        store.submit(next, rollback: .savepoint, origin: .thread)
        #expect(await failing.firstFate() == .threw)
        #expect(await next.firstFate() == .committed(1))
        // Told once: it threw, and was neither finished nor failed after
        // (its batch, or an earlier one, is answered before `next` is).
        #expect(failing.told.withLock { $0 } == [.threw])
        #expect(try store.get([key("failing")]).properties == [nil])
        #expect(store.revision == 1)
    }

    @Test func aClosedStoreFailsTheWriteWithoutRunningIt() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir, durability: .normal)
        store.close()
        let write = RecordedWrite(key("a"))
        store.submit(write, rollback: .validatesFirst, origin: .thread)
        #expect(await write.firstFate() == .failed("\(StoreError.closed)"))
        #expect(write.runs.load(ordering: .relaxed) == 0)
        #expect(write.told.withLock { $0 }.count == 1)
    }
}
