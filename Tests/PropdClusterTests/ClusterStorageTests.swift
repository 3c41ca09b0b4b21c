import EtcdTestSupport
import PropdCluster
import PropdCore
import PropdEtcd
import PropdStore
import Synchronization
import Testing

/// EtcdPropertyStorage on a real three-member etcd, each "node" a storage
/// instance with its own client, as separate propd processes are.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterStorageTests {
    @Test func aWriteOnOneNodeIsSeenOnAnotherInRevisionOrder() async throws {
        try await withNodes(2) { _, nodes in
            let (a, b) = (nodes[0], nodes[1])
            let seenOnB = CommitRecorder(b)
            var committed: [Revision] = []
            for i in 0..<20 {
                let revision = try await a.set(["room.temp": .integer(Int64(i)), "room.count.\(i % 3)": .integer(Int64(i))])
                committed.append(revision)
                // A node reads its own write as soon as it is answered.
                #expect(try a.value("room.temp") == .integer(Int64(i)))
                #expect(try a.get([Key("room.temp")]).properties.first??.revision == revision)
            }
            #expect(committed == committed.sorted() && Set(committed).count == 20)
            try await seenOnB.wait(for: committed[19])
            let observed = seenOnB.recorded
            #expect(observed.map(\.revision) == committed)
            for (index, changeSet) in observed.enumerated() {
                #expect(changeSet.changes.contains(.set(try Key("room.temp"), .integer(Int64(index)))))
                #expect(changeSet.changes.count == 2)
            }
            let onB = try b.get([Key("room.temp")])
            #expect(onB.properties.first??.value == .integer(19))
            #expect(onB.properties.first??.revision == committed[19])
            #expect(onB.revision >= committed[19])
            #expect(try b.list(pattern: KeyPattern("room.count.*")).properties.map(\.key.rawValue)
                == ["room.count.0", "room.count.1", "room.count.2"])
        }
    }

    /// Two nodes each add 1 to the same counter 15 times at once and keep a
    /// copy of it in a second key (as a derived value is kept): a request
    /// that lost the race runs again on the newer space, so no increment is
    /// lost, and no revision has the two keys apart.
    @Test func concurrentConflictingWritesBothCommitAndNeverHalfApply() async throws {
        try await withNodes(2) { cluster, nodes in
            let counter = try Key("plant.counter")
            let copy = try Key("plant.counter.copy")
            let start = try await nodes[0].set(["plant.counter": 0, "plant.counter.copy": 0])
            // Reads on one node see another node's writes once its watch brought them.
            await nodes[1].wait(for: start)
            let runs = Counter()
            let revisions = try await withThrowingTaskGroup(of: [Revision].self) { group in
                for node in nodes {
                    group.addTask {
                        var revisions: [Revision] = []
                        for _ in 0..<15 {
                            revisions.append(try await node.write { transaction in
                                runs.increment()
                                guard case .integer(let now)? = try transaction.property(counter)?.value else {
                                    throw StoreError.noSuchKey(counter)
                                }
                                try transaction.set(counter, .integer(now + 1))
                                try transaction.set(copy, .integer(now + 1))
                            }.revision)
                        }
                        return revisions
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(Set(revisions).count == 30, "each request its own revision")
            print("30 conflicting requests ran their body \(runs.value) times")
            for node in nodes {
                let last = try #require(revisions.max())
                await node.wait(for: last)
                #expect(try node.value("plant.counter") == 30)
                #expect(try node.value("plant.counter.copy") == 30)
            }
            // A third node reads the whole history from etcd: every revision
            // moved both keys to the same next value.
            try await withNode(cluster) { reader in
                let history = try await reader.fetchChanges(after: Revision(0), limit: nil).changeSets.filter { !$0.changes.isEmpty }
                #expect(history.count == 31)
                for (step, changeSet) in history.enumerated() {
                    #expect(Set(changeSet.changes) == [.set(counter, .integer(Int64(step))), .set(copy, .integer(Int64(step)))])
                }
                #expect(Set(history.dropFirst().map(\.revision)) == Set(revisions))
            }
        }
    }

    /// etcd takes at most 128 operations per transaction (`--max-txn-ops`):
    /// 128 property puts fit (the first carries the transaction's id, no
    /// `head`), and their 129 compares become one on the whole space. A
    /// request needing more is refused by name, not split: split, it would be
    /// two revisions with the space half-written in between.
    @Test func aRequestOverEtcdsOperationLimitIsRefusedByNameAndAppliesNothing() async throws {
        try await withNodes(1) { _, nodes in
            let node = nodes[0]
            let fits = try (0..<128).map { try Key("bulk.fits.\($0)") }
            let committed = try await node.write { transaction in
                for key in fits { try transaction.set(key, 1) }
            }
            #expect(committed.changeSet.changes.count == 128)
            #expect(try node.get(fits).properties.allSatisfy { $0?.revision == committed.revision })

            let before = node.revision
            let tooMany = try (0..<129).map { try Key("bulk.over.\($0)") }
            let error = await #expect(throws: StoreError.self) {
                try await node.write { transaction in
                    for key in tooMany { try transaction.set(key, 1) }
                }
            }
            guard case .limitExceeded(let limit, let maximum)? = error else {
                Issue.record("expected limitExceeded, got \(String(describing: error))")
                return
            }
            #expect(limit.contains("--max-txn-ops") && maximum == 128)
            #expect(try node.list(pattern: KeyPattern("bulk.over.**")).properties.isEmpty)
            #expect(try node.keyCount() == 128)
            #expect(node.revision == before)
        }
    }

    @Test func withoutQuorumWritesAreUnavailableThenRecoveryLosesNothing() async throws {
        try await withNodes(2, unavailableAfter: .seconds(3)) { cluster, nodes in
            let (a, b) = (nodes[0], nodes[1])
            var acknowledged: [String: Revision] = [:]
            for i in 0..<10 { acknowledged["q.\(i)"] = try await a.set(["q.\(i)": .integer(Int64(i))]) }
            for index in 1..<3 { cluster.kill(index) }
            // Every member but one is gone: writes fail by name until some
            // attempt is refused as unavailable (the first may have been in
            // flight when the quorum went: its outcome is looked up, then
            // reported unknown).
            var sawUnavailable = false
            for attempt in 0..<4 where !sawUnavailable {
                do {
                    acknowledged["q.lost.\(attempt)"] = try await a.set(["q.lost.\(attempt)": true])
                    Issue.record("a write was acknowledged without a quorum")
                } catch let error as StoreError {
                    switch error {
                    case .unavailable: sawUnavailable = true
                    case .outcomeUnknown: break
                    default: Issue.record("unexpected \(error)")
                    }
                }
            }
            #expect(sawUnavailable)
            for index in 1..<3 { try cluster.restart(index, waitForHealth: false) }
            for index in 0..<3 { try cluster.waitUntilHealthy(index) }
            let seenOnB = CommitRecorder(b)
            acknowledged["q.after"] = try await a.set(["q.after": "back"])
            try await seenOnB.wait(for: try #require(acknowledged["q.after"]))
            for node in nodes {
                for (key, revision) in acknowledged {
                    #expect(try node.get([Key(key)]).properties.first??.revision == revision, "\(key)")
                }
            }
        }
    }

    /// A node's next request after another node changed what a binding
    /// engine is built from says so (the service then rebuilds its engine);
    /// property writes elsewhere and the node's own writes do not.
    @Test func anotherNodesBindingChangeIsFlaggedToTheNextRequestOnly() async throws {
        try await withNodes(2) { _, nodes in
            let (a, b) = (nodes[0], nodes[1])
            let flag: @Sendable (inout WriteTransaction) throws -> Bool = { $0.spaceChangedElsewhere }
            #expect(try await b.write(flag).value == false)
            let plain = try await a.set(["f.source": 1])
            await b.wait(for: plain)
            #expect(try await b.write(flag).value == false, "a property write elsewhere changes no engine")
            let bound = try await a.write { transaction in
                try transaction.putBinding(key: Key("f.derived"), expression: "f.source.map { $0 + 1 }", sources: [Key("f.source")])
            }.revision
            await b.wait(for: bound)
            #expect(try await b.write(flag).value == true)
            #expect(try await b.write(flag).value == false)
            #expect(try await a.write(flag).value == false, "a node's own binding change is already in its engine")
            #expect(try b.bindings().map(\.key.rawValue) == ["f.derived"])
            #expect(try b.bindings().first?.revision == bound)
        }
    }

    @Test func historyAndChangesComeFromEtcdAndCompactionIsNamed() async throws {
        try await withNodes(1) { cluster, nodes in
            let node = nodes[0]
            var revisions: [Revision] = []
            for i in 0..<6 { revisions.append(try await node.set(["log.level": .integer(Int64(i))])) }
            let deleted = try await node.write { transaction in try transaction.delete(Key("log.level")) }.revision
            try await withNode(cluster) { late in
                // Opened after the writes: its past comes from etcd, not its
                // memory, awaited (the seam's `fetch` reads) or, as an event
                // loop reads it, blocking a thread of its own.
                let history = try await late.fetchHistory(of: Key("log.level"), limit: nil, before: nil)
                #expect(try await offThePool { try late.history(of: Key("log.level"), limit: nil, before: nil) } == history)
                #expect(history.map(\.revision) == [deleted] + revisions.reversed())
                #expect(history.first?.kind == .delete)
                #expect(history.dropFirst().map(\.value) == (0..<6).reversed().map { JSONValue.integer(Int64($0)) })
                #expect(try await late.fetchHistory(of: Key("log.level"), limit: 2, before: revisions[3]).map(\.revision)
                    == [revisions[2], revisions[1]])
                #expect(try await late.fetchChanges(after: revisions[4], limit: nil).changeSets.map(\.revision)
                    == [revisions[5], deleted])
                let fifth = revisions[4]
                #expect(try await offThePool { try late.changes(after: fifth) }.changeSets.map(\.revision)
                    == [revisions[5], deleted])

                let configuration = EtcdClient.Configuration(endpoints: try cluster.clientURLs.map { try EtcdEndpoint($0) })
                try await withEtcdClient(configuration) { etcd in try await etcd.compact(upTo: revisions[3].rawValue) }
                #expect(try await offThePool { try late.oldestCompleteRevision() } == revisions[3])
                await #expect(throws: StoreError.compacted(since: revisions[1], oldest: revisions[3])) {
                    try await late.fetchChanges(after: revisions[1], limit: nil)
                }
                let second = revisions[1]
                await #expect(throws: StoreError.compacted(since: revisions[1], oldest: revisions[3])) {
                    try await offThePool { try late.changes(after: second) }
                }
                #expect(try await late.fetchChanges(after: Revision(revisions[3].rawValue - 1), limit: nil).changeSets.map(\.revision)
                    == [revisions[3], revisions[4], revisions[5], deleted])
            }
        }
    }
}
