import Foundation
import Logging
import PropdCore
import PropdStore
import PropdStoreTestSupport
import Synchronization
import Testing

@testable import PropdService

/// The writer's engine and the store stay in step when the store rolls a
/// body back: the next body that gets the same revision rebuilds the engine
/// from what the store kept (see `EngineState`). Driven in process, with
/// lone requests of a hand-run event loop on an idle writer, so that a batch
/// is exactly the requests queued before the tick ends, committed on the
/// test's thread.
@Suite(.timeLimit(.minutes(1))) struct EngineRebuildTests {
    @Test func aBodyRolledBackAfterChangingTheEngineIsForgottenByTheNextRequestOfItsBatch() async throws {
        let fixture = try ServiceFixture()
        let service = fixture.service
        let outcomes = ServiceOutcomes()
        fixture.setInline(fixture.a, 1, outcomes)
        // The engine declares d, then the body fails: the store rolls it back.
        service.submit({ transaction, state in
            _ = try PropertyService.bindBody(fixture.d, expression: "a.map { $0 * 2 }", state: nil, authorize: { _ in })(
                &transaction, &state)
            #expect(state.engine.isDerived(fixture.d))
            throw Refused()
        }, from: fixture.loop.lone, completion: outcomes.completion(0))
        // Same batch, same revision: a stale engine would derive d = 4 here.
        service.submit(.set([fixture.a: 2], expect: [:]), from: fixture.loop.lone) { outcomes.record(1, $0.map(\.revision)) }
        fixture.loop.endTick()

        #expect(outcomes.error(0) is Refused)
        #expect(outcomes.revision(1) == 2)
        #expect(try fixture.store.get([fixture.d]).properties == [nil])
        #expect(try fixture.store.bindings().isEmpty)
        #expect(try fixture.store.changes(after: 1).changeSets == [ChangeSet(revision: 2, changes: [.set(fixture.a, 2)])])
        #expect(service.engine.withLock { $0.engine.isDerived(fixture.d) } == false)

        // The rebuilt engine works: d binds and derives from what the store holds.
        #expect(try await service.bind(fixture.d, expression: "a.map { $0 * 2 }").revision == 3)
        #expect(try fixture.store.get([fixture.d]).properties.first??.value == 4)
    }

    @Test func aBatchAbandonedAtCommitLeavesTheNextBatchARebuiltEngine() async throws {
        let fixture = try ServiceFixture()
        let service = fixture.service
        let outcomes = ServiceOutcomes()
        fixture.setInline(fixture.a, 1, outcomes)
        // A Bind that succeeds on its own (the engine derives d = 2)...
        service.submit(.bind(fixture.d, expression: "a.map { $0 * 2 }", authorize: { _ in }), from: fixture.loop.lone) {
            outcomes.record(0, $0.map(\.revision))
        }
        // ...in a batch that cannot commit: a body without savepoint fails after writing.
        service.submit({ transaction, _ in
            try transaction.set(fixture.other, 1)
            throw Refused()
        }, rollback: .validatesFirst, from: fixture.loop.lone, completion: outcomes.completion(1))
        fixture.loop.endTick()

        guard case .storage = outcomes.error(0) as? ServiceError else {
            Issue.record("the Bind was not failed with its batch: \(String(describing: outcomes.error(0)))")
            return
        }
        #expect(outcomes.error(1) is Refused)
        #expect(fixture.store.revision == 1)

        // The next batch reuses revision 2: the engine must not derive d.
        #expect(try await service.set([fixture.a: 5]) == 2)
        #expect(try fixture.store.get([fixture.d, fixture.other]).properties == [nil, nil])
        #expect(service.engine.withLock { $0.engine.isDerived(fixture.d) } == false)
        #expect(try fixture.store.changes(after: 1).changeSets == [ChangeSet(revision: 2, changes: [.set(fixture.a, 5)])])
    }
}

struct Refused: Error {}

/// A real store in a fresh directory and the service on it.
final class ServiceFixture: Sendable {
    let directory: String
    let store: PropertyStore
    let service: PropertyService
    let a: Key
    let d: Key
    let other: Key
    /// The event loop the tests' writes come from.
    let loop = ManualLoop()

    init() throws {
        directory = NSTemporaryDirectory() + "propd-service-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try PropertyStore(
            path: directory + "/propd.db", configuration: StoreConfiguration(durability: .normal))
        service = try PropertyService(store: store, logger: Logger(label: "propd.test"))
        a = try Key("a")
        d = try Key("d")
        other = try Key("other")
    }

    deinit {
        service.shutdown()
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sets `key` in a batch of its own, committed on this thread: the
    /// writer is idle again when it returns (no drain on the writer's queue
    /// can take part of the next batch).
    func setInline(_ key: Key, _ value: JSONValue, _ outcomes: ServiceOutcomes) {
        service.submit(.set([key: value], expect: [:]), from: loop.lone) { outcomes.record(-1, $0.map(\.revision)) }
        loop.endTick()
        #expect(outcomes.revision(-1) == store.revision)
        #expect(store.statistics.batches == store.statistics.inlineBatches)
    }
}

/// Outcomes of submitted writes by submission index. The requests of these
/// tests commit inline at the end of the loop's tick, so every outcome is in before it ends.
final class ServiceOutcomes: Sendable {
    private let results = Mutex<[Int: Result<Revision, any Error>]>([:])

    func record<E: Error>(_ index: Int, _ result: Result<Revision, E>) {
        results.withLock { $0[index] = result.mapError { $0 } }
    }

    func completion<T>(_ index: Int) -> @Sendable (Result<Committed<T>, any Error>) -> Void {
        { result in self.record(index, result.map(\.revision)) }
    }

    func revision(_ index: Int) -> Revision? {
        results.withLock { try? $0[index]?.get() }
    }

    func error(_ index: Int) -> (any Error)? {
        results.withLock { results in
            guard case .failure(let error) = results[index] else { return nil }
            return error
        }
    }
}
