import Synchronization
import Foundation
import PropdCore
import PropdStore
import Testing

struct BodyFailed: Error, Equatable {}

@Suite struct WriteTransactionTests {
    @Test func derivedKeyLifecycle() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let d = key("form.valid")
        let declared = try await store.write { tx in
            tx.revision.rawValue == 1 ? try tx.declareDerived(d) : false
        }
        #expect(declared.value == true)
        #expect(declared.changeSet.changes.isEmpty)
        #expect(try store.get([d]).properties.first ?? nil == Property(key: d, value: nil, revision: 1, created: 1))

        try await store.write { tx in try tx.set(d, true) }
        let failed = try await store.write { tx in try tx.setError(d, "division by zero") }
        #expect(failed.changeSet.changes == [Change(key: d, kind: .error("division by zero"), kept: true)])
        let inError = try #require(try store.get([d]).properties.first ?? nil)
        #expect(inError.value == true)
        #expect(inError.error == "division by zero")
        #expect(inError.revision == 3)
        #expect(try store.history(of: d, limit: 1) == [
            Event(key: "form.valid", kind: .error, value: true, revision: 3, error: "division by zero")
        ])
        try await store.write { tx in try tx.set(d, false) }
        #expect(try store.get([d]).properties.first??.error == nil)
    }

    @Test func setErrorOnMissingKeyCreatesItWithoutValue() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write { tx in try tx.setError(key("d"), "missing field") }
        let d = try #require(try store.get([key("d")]).properties.first ?? nil)
        #expect(d.value == nil)
        #expect(d.error == "missing field")
    }

    @Test func laterRequestsOfABatchSeeEarlierOnesAndChangesCoalescePerKey() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let committed = try await store.write { tx -> JSONValue? in
            try tx.set(key("a"), 1)
            try tx.set(key("b"), 1)
            try tx.set(key("a"), 2)
            return try tx.property(key("a"))?.value
        }
        #expect(committed.value == 2)
        #expect(committed.changeSet.changes == [.set(key("a"), 2), .set(key("b"), 1)])
        #expect(try store.history(of: key("a")).map(\.value) == [2])
    }

    @Test func throwingBodyRollsBackAloneAndConsumesNoRevision() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1]))
        await #expect(throws: BodyFailed.self) {
            try await store.write { tx in
                try tx.set(key("a"), 99)
                try tx.putBinding(key: key("x"), expression: "a.map { $0 }", sources: [key("a")])
                throw BodyFailed()
            }
        }
        #expect(try store.get([key("a")]).properties.first??.value == 1)
        #expect(try store.bindings() == [])
        #expect(store.revision == 1)
        #expect(store.statistics.rejected == 1)
    }

    @Test func bindingsAndStateRoundTrip() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            try await store.write { tx in
                try tx.putBinding(key: key("d"), expression: "a.scan(0) { s, x in s + x }", sources: [key("a")])
                try tx.putBindingState(key("d"), ["accumulator": 3])
                try tx.putBinding(key: key("e"), expression: "combineLatest(a, b)", sources: [key("a"), key("b")])
            }
            let inside = try await store.write { tx in
                (try tx.binding(key("e"))?.sources, try tx.bindingState(key("d")))
            }
            #expect(inside.value.0 == [key("a"), key("b")])
            #expect(inside.value.1 == ["accumulator": 3])
        }
        // Survives a restart.
        let store = try openStore(dir)
        #expect(try store.bindings() == [
            BindingRecord(key: key("d"), expression: "a.scan(0) { s, x in s + x }", sources: [key("a")], revision: 1),
            BindingRecord(key: key("e"), expression: "combineLatest(a, b)", sources: [key("a"), key("b")], revision: 1),
        ])
        #expect(try store.bindingStates() == [key("d"): ["accumulator": 3]])
        let removed = try await store.write { tx in
            (try tx.removeBinding(key("d")), try tx.removeBindingState(key("d")), try tx.removeBinding(key("zz")))
        }
        #expect(removed.value == (true, true, false))
        #expect(try store.bindings().map(\.key) == [key("e")])
        #expect(try store.bindingStates().isEmpty)
    }

    @Test func getShowsTheBindingExpression() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write { tx in
            try tx.putBinding(key: key("f"), expression: "c.map { $0 * 9 / 5 + 32 }", sources: [key("c")])
            try tx.set(key("f"), 70)
        }
        #expect(try store.get([key("f")]).properties.first??.binding == "c.map { $0 * 9 / 5 + 32 }")
        #expect(try store.list().properties.first?.binding == "c.map { $0 * 9 / 5 + 32 }")
    }

    @Test func onCommitSeesChangeSetsInRevisionOrderBeforeCallersResume() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let seen = Recorded()
        store.onCommit { changeSets in seen.append(changeSets.map(\.revision)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask {
                    let changes = try await store.write(WriteRequest(set: [key("k.\(i)"): .integer(Int64(i))]))
                    // The observer was told before this caller resumed.
                    #expect(seen.all.contains(changes.revision))
                }
            }
            try await group.waitForAll()
        }
        #expect(seen.all == (1...50).map { Revision(Int64($0)) })
    }
}

/// A list appended to from the writer and read by the test.
final class Recorded: Sendable {
    private let revisions = Mutex<[Revision]>([])
    func append(_ more: [Revision]) { revisions.withLock { $0.append(contentsOf: more) } }
    var all: [Revision] { revisions.withLock { $0 } }
}
