import Foundation
import PropdCore
import PropdStore
import PropertyBased
import Synchronization
import Testing

/// Random sequences of sets, deletes and expectations, run against the store
/// and against a plain in-memory model: outcomes, contents, revisions and
/// history must agree after every sequence.
@Suite struct ModelTests {
    static let keys = ["a", "b", "c.d", "c.e", "f"].map { key($0) }

    /// The reference: what propd's contract says should happen.
    struct Model {
        var properties: [Key: Property] = [:]
        var revision: Revision = 0
        var history: [Key: [Event]] = [:]  // newest first
        var changeSets: [ChangeSet] = []

        mutating func apply(_ request: WriteRequest) -> Result<Revision, StoreError> {
            for (k, expected) in request.expect.sorted(by: { $0.key < $1.key }) {
                let actual = properties[k]?.revision ?? Revision.none
                if actual != expected { return .failure(.revisionMismatch(key: k, expected: expected, actual: actual)) }
            }
            var present = Set(properties.keys)
            for k in request.delete {
                guard present.remove(k) != nil else { return .failure(.noSuchKey(k)) }
            }
            let next = revision.next
            var changes: [Change] = []
            for k in request.delete {
                properties[k] = nil
                changes.append(.delete(k))
            }
            for (k, v) in request.set.sorted(by: { $0.key < $1.key }) {
                properties[k] = Property(key: k, value: v, revision: next, created: properties[k]?.created ?? next)
                if let i = changes.firstIndex(where: { $0.key == k }) { changes[i] = .set(k, v) } else { changes.append(.set(k, v)) }
            }
            revision = next
            for change in changes { history[change.key, default: []].insert(change.event(at: next), at: 0) }
            if !changes.isEmpty { changeSets.append(ChangeSet(revision: next, changes: changes.sorted { $0.key < $1.key })) }
            return .success(next)
        }
    }

    /// A request and the outcome the model gives it.
    typealias PlannedRequest = (request: WriteRequest, expected: Result<Revision, StoreError>)

    /// Decodes one random number into a request over a small key space, so
    /// that collisions, stale expectations and missing deletes are frequent.
    static func request(_ x: Int, model: Model) -> WriteRequest {
        let k1 = keys[x % keys.count]
        let k2 = keys[(x / 5) % keys.count]
        let value = JSONValue.integer(Int64((x / 25) % 1000))
        var request: WriteRequest
        switch (x / 25_000) % 4 {
        case 0: request = WriteRequest(set: [k1: value])
        case 1:
            var set = [k1: value]
            set[k2] = .string("s\(x % 7)")  // k2 may be k1: the later value wins
            request = WriteRequest(set: set)
        case 2: request = WriteRequest(delete: [k1])
        default: request = WriteRequest(set: [k2: [value]], delete: [k1])
        }
        switch (x / 100_000) % 4 {
        case 0: break
        case 1: request.expect[k1] = model.properties[k1]?.revision ?? Revision.none  // right
        case 2: request.expect[k1] = Revision((model.properties[k1]?.revision.rawValue ?? 0) + 1)  // wrong
        default: request.expect[k2] = Revision.none  // right only if absent
        }
        return request
    }

    // Without shrinking: a failure reports its own expectations (shrinking
    // re-runs the body and reports only the input when the re-run passes).
    @Test(.shrinking(false)) func storeMatchesModel() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...1_000_000).array(of: 1...40)) { numbers in
            await recordingThrownErrors {
                let dir = try TemporaryDirectory()
                let store = try openStore(dir, historyPerKey: 1000)
                var model = Model()
                for x in numbers {
                    let request = Self.request(x, model: model)
                    let expected = model.apply(request)
                    let actual: Result<Revision, StoreError>
                    do {
                        actual = .success(try await store.write(request).revision)
                    } catch let error as StoreError {
                        actual = .failure(error)
                    }
                    #expect(actual == expected, "request \(request)")
                }
                #expect(store.revision == model.revision)
                let listed = try store.list()
                #expect(listed.revision == model.revision)
                #expect(listed.properties == model.properties.values.sorted { $0.key < $1.key })
                #expect(try store.get(Self.keys).properties == Self.keys.map { model.properties[$0] })
                for k in Self.keys {
                    #expect(try store.history(of: k) == model.history[k, default: []], "history of \(k)")
                }
                #expect(try store.changes(after: 0).changeSets == model.changeSets)
                try expectIntactHistoryChains(dir)
            }
        }
    }

    /// The same requests, submitted in groups (so that batches hold several,
    /// often touching one key several times) into a store keeping 2 changes
    /// per key: outcomes as the model's, every key's history a newest-first
    /// prefix of the model's with at least 2 entries, `changes(after:)`
    /// complete after the horizon, and the chains intact.
    // Without shrinking, as storeMatchesModel.
    @Test(.shrinking(false)) func storeMatchesModelWhileCompactingBatches() async {
        await propertyCheck(count: 40, input: Gen.int(in: 0...1_000_000).array(of: 1...60)) { numbers in
            await recordingThrownErrors {
                let dir = try TemporaryDirectory()
                let store = try openStore(dir, historyPerKey: 2)
                var model = Model()
                // Groups of requests submitted at once, a group ending after every
                // number divisible by 4: batches of many sizes, each trimming.
                var groups: [[PlannedRequest]] = [[]]
                for x in numbers {
                    let request = Self.request(x, model: model)
                    groups[groups.count - 1].append((request, model.apply(request)))
                    if x % 4 == 0 { groups.append([]) }
                }
                for group in groups where !group.isEmpty {
                    #expect(await Self.submitAll(group.map(\.request), to: store) == group.map(\.expected))
                }
                try Self.expectCompactedHistory(of: store, in: dir, as: model)
            }
        }
    }

    /// Longer runs of grouped requests into a store keeping 2 changes per
    /// key (a pass every 16 rows), closed and opened again at random points,
    /// so that passes meet rows from before the open, and with a history
    /// floor held over random stretches, as a slow subscriber holds it: while
    /// a floor F holds, every change after F stays readable
    /// (`changes(after: F)` as the model's); besides, everything
    /// storeMatchesModelWhileCompactingBatches checks.
    // Without shrinking, as storeMatchesModel.
    @Test(.shrinking(false)) func storeMatchesModelAcrossReopensAndAHeldFloor() async {
        await propertyCheck(count: 20, input: Gen.int(in: 0...1_000_000).array(of: 300...1200)) { numbers in
            await recordingThrownErrors {
                let dir = try TemporaryDirectory()
                let floor = Mutex<Revision?>(nil)
                let heldFloor: @Sendable () -> Revision? = { floor.withLock { $0 } }
                var store = try openStore(dir, historyPerKey: 2)
                store.retainHistory(after: heldFloor)
                var model = Model()
                var group: [PlannedRequest] = []
                for x in numbers {
                    let request = Self.request(x, model: model)
                    group.append((request, model.apply(request)))
                    guard x % 4 == 0 else { continue }
                    let outcomes = await Self.submitAll(group.map(\.request), to: store)
                    #expect(outcomes == group.map(\.expected), "\(Self.describe(group, outcomes))")
                    group = []
                    if let held = floor.withLock({ $0 }) {
                        #expect(
                            try store.changes(after: held).changeSets == model.changeSets.filter { $0.revision > held },
                            "changes after the held floor \(held)")
                    }
                    switch (x / 4) % 16 {
                    case 1:
                        // Closed and opened again: nothing of the passes is
                        // remembered. The store released may still be closing
                        // its connections while the new one writes.
                        store.close()
                        store = try openStore(dir, historyPerKey: 2)
                        store.retainHistory(after: heldFloor)
                    case 2:  // a floor taken at the current revision, or let go
                        floor.withLock { $0 = $0 == nil ? model.revision : nil }
                    default: break
                    }
                }
                if !group.isEmpty {
                    #expect(await Self.submitAll(group.map(\.request), to: store) == group.map(\.expected))
                }
                #expect(store.revision == model.revision)
                #expect(try store.list().properties == model.properties.values.sorted { $0.key < $1.key })
                try Self.expectCompactedHistory(of: store, in: dir, as: model)
            }
        }
    }

    /// A store keeping 2 changes per key against the model: every key's
    /// history a newest-first prefix of the model's with at least 2 entries
    /// (or all it has), `changes(after:)` complete after the horizon, and
    /// the chains intact.
    static func expectCompactedHistory(
        of store: PropertyStore, in dir: TemporaryDirectory, as model: Model,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for k in keys {
            let kept = try store.history(of: k)
            let all = model.history[k, default: []]
            #expect(kept.count >= min(2, all.count), "history of \(k)", sourceLocation: sourceLocation)
            #expect(kept == Array(all.prefix(kept.count)), "history of \(k)", sourceLocation: sourceLocation)
        }
        let since = Revision(try store.oldestCompleteRevision().rawValue - 1)
        #expect(
            try store.changes(after: since).changeSets == model.changeSets.filter { $0.revision > since },
            sourceLocation: sourceLocation)
        try expectIntactHistoryChains(dir, sourceLocation: sourceLocation)
    }

    /// Each request of a group beside its expected and actual outcome, one a line.
    static func describe(
        _ group: [PlannedRequest],
        _ outcomes: [Result<Revision, StoreError>]
    ) -> String {
        zip(group, outcomes).map { "\($0.request): expected \($0.expected), got \($1)" }.joined(separator: "\n")
    }

    /// Submits every request at once, in order, and waits for all outcomes.
    /// By default without a savepoint when it cannot fail after writing (one
    /// delete at most), as ``PropertyStore/write(_:)`` runs a request.
    static func submitAll(
        _ requests: [WriteRequest], to store: PropertyStore,
        needsSavepoint: @escaping (WriteRequest) -> Bool = { $0.delete.count > 1 }
    ) async -> [Result<Revision, StoreError>] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Result<Revision, StoreError>], Never>) in
            let collected = Mutex([Int: Result<Revision, StoreError>]())
            for (index, request) in requests.enumerated() {
                let rollback: WriteRollback = needsSavepoint(request) ? .savepoint : .validatesFirst
                store.submit(WriteSubmission({ tx in try request.apply(to: &tx) }, rollback: rollback, origin: .thread) { result in
                    let outcome = result.map(\.revision).mapError { $0 as? StoreError ?? .closed }
                    let all: [Result<Revision, StoreError>]? = collected.withLock { collected in
                        collected[index] = outcome
                        guard collected.count == requests.count else { return nil }
                        return collected.sorted { $0.key < $1.key }.map(\.value)
                    }
                    if let all { continuation.resume(returning: all) }
                })
            }
        }
    }
}
