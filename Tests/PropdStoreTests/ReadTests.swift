import Foundation
import PropdCore
import PropdStore
import Testing

@Suite struct ReadTests {
    static func populated() async throws -> (TemporaryDirectory, PropertyStore) {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let keys = ["room", "room.temp", "room.a.b", "room-x", "roomy.temp", "room.hum", "other.temp", "a", "zz.top"]
        for (i, k) in keys.enumerated() {
            try await store.write(WriteRequest(set: [key(k): .integer(Int64(i))]))
        }
        return (dir, store)
    }

    func keys(_ store: PropertyStore, _ pattern: String?, limit: Int? = nil) throws -> [String] {
        try store.list(pattern: pattern.map { try KeyPattern($0) }, limit: limit).properties.map(\.key.rawValue)
    }

    @Test func listAllIsSortedByBytes() async throws {
        let (dir, store) = try await Self.populated()
        defer { withExtendedLifetime(dir) {} }
        #expect(try keys(store, nil) == ["a", "other.temp", "room", "room-x", "room.a.b", "room.hum", "room.temp", "roomy.temp", "zz.top"])
        #expect(try store.list().revision == 9)
    }

    @Test func listByPatterns() async throws {
        let (dir, store) = try await Self.populated()
        defer { withExtendedLifetime(dir) {} }
        #expect(try keys(store, "room.*") == ["room.hum", "room.temp"])
        #expect(try keys(store, "room.**") == ["room.a.b", "room.hum", "room.temp"])
        #expect(try keys(store, "*.temp") == ["other.temp", "room.temp", "roomy.temp"])
        #expect(try keys(store, "**") == ["a", "other.temp", "room", "room-x", "room.a.b", "room.hum", "room.temp", "roomy.temp", "zz.top"])
        #expect(try keys(store, "room") == ["room"])
        #expect(try keys(store, "room.temp") == ["room.temp"])
        #expect(try keys(store, "nothing.*") == [])
        #expect(try keys(store, "room.*.b") == ["room.a.b"])
    }

    @Test func listLimitAppliesAfterMatching() async throws {
        let (dir, store) = try await Self.populated()
        defer { withExtendedLifetime(dir) {} }
        #expect(try keys(store, "*.temp", limit: 2) == ["other.temp", "room.temp"])
        #expect(try keys(store, nil, limit: 0) == [])
    }

    @Test func readsSeeAConsistentRevision() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let writer = Task {
            for i in 1...200 {
                try await store.write(WriteRequest(set: [key("a"): .integer(Int64(i)), key("b"): .integer(Int64(i))]))
            }
        }
        for _ in 0..<200 {
            let read = try store.get([key("a"), key("b")])
            // Both keys are written by every request: they are always at the revision read.
            if read.revision > 0 {
                #expect(read.properties[0]?.revision == read.revision)
                #expect(read.properties[1]?.revision == read.revision)
                #expect(read.properties[0]?.value == .integer(read.revision.rawValue))
            }
        }
        try await writer.value
    }

    @Test func historyIsNewestFirstWithLimitAndBefore() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1]))
        try await store.write(WriteRequest(set: [key("b"): 1]))
        try await store.write(WriteRequest(set: [key("a"): 2]))
        try await store.write(WriteRequest(delete: [key("a")]))
        try await store.write(WriteRequest(set: [key("a"): 3]))
        let all = try store.history(of: key("a"))
        #expect(all == [
            Event(key: "a", kind: .set, value: 3, revision: 5),
            Event(key: "a", kind: .delete, revision: 4),
            Event(key: "a", kind: .set, value: 2, revision: 3),
            Event(key: "a", kind: .set, value: 1, revision: 1),
        ])
        #expect(try store.history(of: key("a"), limit: 2).map(\.revision) == [5, 4])
        #expect(try store.history(of: key("a"), before: 4).map(\.revision) == [3, 1])
        #expect(try store.history(of: key("a"), limit: 1, before: 3).map(\.revision) == [1])
        #expect(try store.history(of: key("nope")) == [])
    }

    @Test func changesAfterReturnsEveryChangeSetInOrder() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        try await store.write(WriteRequest(set: [key("a"): 1, key("b"): 2]))
        try await store.write(WriteRequest())
        try await store.write(WriteRequest(delete: [key("a")]))
        let all = try store.changes(after: 0)
        #expect(all.revision == 3)
        #expect(all.changeSets == [
            ChangeSet(revision: 1, changes: [.set(key("a"), 1), .set(key("b"), 2)]),
            ChangeSet(revision: 3, changes: [.delete(key("a"))]),
        ])
        #expect(try store.changes(after: 1).changeSets.map(\.revision) == [3])
        #expect(try store.changes(after: 3).changeSets == [])
        #expect(try store.changes(after: 99).changeSets == [])
    }

    @Test func databaseBytesAndKeyCount() async throws {
        let (dir, store) = try await Self.populated()
        defer { withExtendedLifetime(dir) {} }
        #expect(store.databaseBytes > 0)
        #expect(try store.keyCount() == 9)
    }
}

@Suite struct ChangesPagingTests {
    @Test func changesAfterPagesByWholeChangeSets() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        for i in 1...7 {
            try await store.write(WriteRequest(set: [key("a"): .integer(Int64(i)), key("b"): .integer(Int64(i))]))
        }
        var pages: [[Revision]] = []
        var after: Revision = 0
        while true {
            let page = try store.changes(after: after, limit: 3).changeSets
            if page.isEmpty { break }
            #expect(page.allSatisfy { $0.changes.count == 2 })
            pages.append(page.map(\.revision))
            after = page[page.count - 1].revision
        }
        #expect(pages == [[1, 2, 3], [4, 5, 6], [7]])
    }
}
