import Foundation
import PropdCore
import PropdStore
import Testing

@Suite struct GroupCommitTests {
    @Test(arguments: [StoreConfiguration.Durability.normal, .full])
    func concurrentWritersEachGetTheirOwnRevisionAndOutcome(durability: StoreConfiguration.Durability) async throws {
        let dir = try TemporaryDirectory()
        // History large enough that nothing is compacted: every revision is checked below.
        let store = try openStore(dir, durability: durability, historyPerKey: 10_000)
        let writers = 64
        let perWriter = 20
        // Writer w alternates good requests and ones whose expectation fails.
        let outcomes = try await withThrowingTaskGroup(of: [(Int, Revision?)].self) { group in
            for w in 0..<writers {
                group.addTask {
                    var results: [(Int, Revision?)] = []
                    for i in 0..<perWriter {
                        let n = w * perWriter + i
                        if i % 4 == 3 {
                            let error = await storeError {
                                try await store.write(WriteRequest(set: [key("w.\(w)"): 0], expect: [key("w.\(w)"): 1_000_000]))
                            }
                            #expect(error?.isRevisionMismatch == true)
                            results.append((n, nil))
                        } else {
                            let changes = try await store.write(WriteRequest(set: [key("w.\(w)"): .integer(Int64(n)), key("last"): .integer(Int64(n))]))
                            results.append((n, changes.revision))
                        }
                    }
                    return results
                }
            }
            var all: [(Int, Revision?)] = []
            for try await results in group { all += results }
            return all
        }
        let committed = outcomes.compactMap { n, revision in revision.map { (n, $0) } }
        let expectedCount = writers * perWriter * 3 / 4
        #expect(committed.count == expectedCount)
        // Every acknowledged request has its own revision, and the revisions are exactly 1...N.
        #expect(Set(committed.map(\.1)).count == expectedCount)
        #expect(committed.map(\.1).sorted() == (1...expectedCount).map { Revision(Int64($0)) })
        #expect(store.revision == Revision(Int64(expectedCount)))
        // Each revision holds exactly its own request's values.
        let changes = try store.changes(after: 0).changeSets
        let byRevision = Dictionary(uniqueKeysWithValues: changes.map { ($0.revision, $0) })
        for (n, revision) in committed {
            let value = JSONValue.integer(Int64(n))
            #expect(byRevision[revision]?.changes == [.set(key("last"), value), .set(key("w.\(n / perWriter)"), value)])
        }
        // Group commit really grouped: fewer transactions than requests.
        let statistics = store.statistics
        #expect(statistics.requests == expectedCount)
        #expect(statistics.rejected == writers * perWriter / 4)
        #expect(statistics.largestBatch > 1)
        #expect(statistics.batches < expectedCount)
    }

    @Test func aFailingBodyInsideABatchDoesNotDisturbItsNeighbours() async throws {
        let dir = try TemporaryDirectory()
        let store = try openStore(dir)
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for i in 0..<40 {
                group.addTask {
                    do {
                        _ = try await store.write { tx in
                            try tx.set(key("k.\(i)"), .integer(Int64(i)))
                            if i % 3 == 0 { throw BodyFailed() }
                        }
                        return (i, true)
                    } catch is BodyFailed {
                        return (i, false)
                    }
                }
            }
            var all: [Int: Bool] = [:]
            for try await (i, ok) in group { all[i] = ok }
            return all
        }
        let keys = try store.list().properties.map(\.key.rawValue)
        #expect(Set(keys) == Set(results.filter(\.value).map { "k.\($0.key)" }))
        #expect(results.filter { !$0.value }.keys.allSatisfy { $0 % 3 == 0 })
        #expect(store.revision == Revision(Int64(results.filter(\.value).count)))
    }
}

extension StoreError {
    var isRevisionMismatch: Bool {
        if case .revisionMismatch = self { return true }
        return false
    }
}
