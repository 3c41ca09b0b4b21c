import Foundation
import PropdCore
@testable import PropdStore
import Testing

@Suite struct WriteRequestTests {
    @Test func setCreatesKeysAtOneRevision() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let changes = try await store.write(WriteRequest(set: [key("room.temp"): 21, key("room.unit"): "C"]))
        #expect(changes.revision == 1)
        #expect(changes.changes == [.set(key("room.temp"), 21), .set(key("room.unit"), "C")])
        let read = try store.get([key("room.unit"), key("room.temp"), key("missing")])
        #expect(read.revision == 1)
        #expect(read.properties[0] == Property(key: key("room.unit"), value: "C", revision: 1, created: 1))
        #expect(read.properties[1] == Property(key: key("room.temp"), value: 21, revision: 1, created: 1))
        #expect(read.properties[2] == nil)
    }

    @Test func updateKeepsCreatedAndAdvancesRevision() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1]))
        try await store.write(WriteRequest(set: [key("b"): 1]))
        try await store.write(WriteRequest(set: [key("a"): ["x": [1, 2.5, "s", true, nil]]]))
        let a = try #require(try store.get([key("a")]).properties.first ?? nil)
        #expect(a.value == ["x": [1, 2.5, "s", true, nil]])
        #expect(a.revision == 3)
        #expect(a.created == 1)
        #expect(store.revision == 3)
    }

    @Test func integersStayIntegers() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("n"): 21, key("big"): .integer(9_007_199_254_740_992)]))
        let read = try store.get([key("n"), key("big")]).properties
        #expect(read[0]?.value?.jsonString == "21")
        #expect(read[1]?.value?.jsonString == "9007199254740992")
    }

    @Test func deleteRemovesAndRecreateGetsNewCreated() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1]))
        let deleted = try await store.write(WriteRequest(delete: [key("a")]))
        #expect(deleted.changes == [.delete(key("a"))])
        #expect(try store.get([key("a")]).properties == [nil])
        try await store.write(WriteRequest(set: [key("a"): 2]))
        #expect(try store.get([key("a")]).properties.first??.created == 3)
    }

    @Test func deletingAMissingKeyIsNoSuchKeyAndWritesNothing() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1]))
        let error = await storeError { try await store.write(WriteRequest(set: [key("b"): 2], delete: [key("a"), key("zz")])) }
        #expect(error == .noSuchKey(key("zz")))
        #expect(store.revision == 1)
        #expect(try store.list().properties.map(\.key) == [key("a")])
        #expect(try store.history(of: key("a")).count == 1)
    }

    /// A request with one delete runs without a savepoint: a missing key
    /// fails it before its first write, and its batch neighbours commit.
    @Test func aMissingSingleDeleteInABatchIsRejectedAloneWithoutTrace() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let outcomes = await ModelTests.submitAll([
            WriteRequest(set: [key("a"): 1]),
            WriteRequest(set: [key("b"): 2], delete: [key("zz")]),
            WriteRequest(set: [key("c"): 3]),
        ], to: store)
        #expect(outcomes == [.success(1), .failure(.noSuchKey(key("zz"))), .success(2)])
        #expect(try store.list().properties.map(\.key) == [key("a"), key("c")])
        #expect(try store.history(of: key("b")) == [])
        #expect(try store.changes(after: 0).changeSets.map(\.revision) == [1, 2])
        try expectIntactHistoryChains(dir)
    }

    @Test func expectationsPassWhenRevisionsMatch() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1]))
        let changes = try await store.write(
            WriteRequest(set: [key("a"): 2, key("b"): 1], expect: [key("a"): 1, key("b"): .none]))
        #expect(changes.revision == 2)
    }

    @Test func failedExpectationNamesKeyExpectedActualAndWritesNothing() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1]))
        let stale = await storeError { try await store.write(WriteRequest(set: [key("a"): 2], expect: [key("a"): 7])) }
        #expect(stale == .revisionMismatch(key: key("a"), expected: 7, actual: 1))
        let exists = await storeError { try await store.write(WriteRequest(set: [key("c"): 2], expect: [key("a"): .none])) }
        #expect(exists == .revisionMismatch(key: key("a"), expected: 0, actual: 1))
        let absent = await storeError { try await store.write(WriteRequest(delete: [key("a")], expect: [key("q"): 3])) }
        #expect(absent == .revisionMismatch(key: key("q"), expected: 3, actual: 0))
        #expect(store.revision == 1)
        #expect(try store.list().properties.map(\.key) == [key("a")])
        #expect(try store.get([key("a")]).properties.first??.value == 1)
        // The failures consumed no revision: the next write is revision 2.
        #expect(try await store.write(WriteRequest(set: [key("a"): 3])).revision == 2)
    }

    @Test func emptyRequestStillTakesOneRevision() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let changes = try await store.write(WriteRequest())
        #expect(changes == ChangeSet(revision: 1, changes: []))
        #expect(try store.get([]).revision == 1)
    }

    @Test func writesAfterCloseAreRefused() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        store.close()
        let error = await storeError { try await store.write(WriteRequest(set: [key("a"): 1])) }
        #expect(error == .closed)
    }
}

@Suite struct DurabilityTests {
    /// The writer's connection runs at the configured level: `full` that
    /// silently did not fsync at commit would lose acknowledged writes.
    @Test func theWriterUsesTheConfiguredSynchronousLevel() throws {
        let dir = try TemporaryDirectory()
        #expect(try openStore(dir, durability: .full).writerSynchronous() == 2)
        #expect(try openStore(dir, durability: .normal).writerSynchronous() == 1)
    }
}
