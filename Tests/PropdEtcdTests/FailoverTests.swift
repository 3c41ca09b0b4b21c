import EtcdTestSupport
import PropdEtcd
import Testing

extension EtcdClusterTests {
    @Suite struct FailoverTests {
        @Test func aKilledFollowerIsInvisibleToWrites() async throws {
            try await withCluster { cluster, etcd in
                // A client whose connection is to the follower that dies, so
                // it must move: a client on another member would not notice.
                let follower = (try await etcd.leaderIndex() + 1) % 3
                let endpoints = etcd.configuration.endpoints
                let order = [follower] + (0..<3).filter { $0 != follower }
                try await withEtcdClient(.init(endpoints: order.map { endpoints[$0] })) { client in
                    try await client.put("/f/before".bytes, "1".bytes)
                    cluster.kill(follower)
                    // The first request after the death may go out on the
                    // connection before the client has read its end; a write
                    // sent so is honestly `outcomeUnknown` (a member can die
                    // after passing it to the leader), so the first request
                    // is a read, which may be sent again: no error.
                    #expect(try await client.range(.prefix("/f/".bytes)).count == 1)
                    var revisions: [Int64] = []
                    for i in 0..<30 {  // no error at all: the quorum is intact
                        revisions.append(try await client.put("/f/\(i)".bytes, "\(i)".bytes).revision)
                    }
                    #expect(revisions == revisions.sorted() && Set(revisions).count == 30)
                    #expect(try await client.range(.prefix("/f/".bytes)).count == 31)

                    try cluster.restart(follower)
                    #expect(try await client.status(of: endpoints[follower]).revision >= revisions.last ?? 0)
                }
            }
        }

        @Test func aTransactionOnTheTransactionLoopGoesToAnotherMemberWhenItsOwnIsDown() async throws {
            try await withCluster { cluster, etcd in
                // A client that tries a follower first (until another member
                // answers): killing it costs no election.
                let follower = (try await etcd.leaderIndex() + 1) % 3
                let endpoints = etcd.configuration.endpoints
                let order = [follower] + (0..<3).filter { $0 != follower }
                try await withEtcdClient(.init(endpoints: order.map { endpoints[$0] })) { client in
                    cluster.kill(follower)
                    let key = "/g/a".bytes
                    let createOnce = [EtcdCompare(.key(key), .equal, .createRevision(0))]
                    let (created, onTransactionLoop) = try await client.txnFuture(
                        createOnce, success: [.put(key: key, value: "1".bytes)]
                    ).map { ($0, client.transactionLoop.inEventLoop) }.get()
                    #expect(created.succeeded)
                    #expect(onTransactionLoop, "the result is delivered on the transaction loop")
                    let again = try await client.txnFuture(createOnce, success: [.put(key: key, value: "2".bytes)]).get()
                    #expect(!again.succeeded, "applied once: the second create finds the key")
                    let read = try await client.range(.key(key))
                    #expect(read.keyValues.map(\.value.string) == ["1"])
                    #expect(read.keyValues.first?.modRevision == created.revision)
                }
            }
        }

        @Test func writesGoOnAfterTheElectionWhenTheLeaderIsKilled() async throws {
            try await withCluster(unavailableAfter: .seconds(10)) { cluster, etcd in
                let leader = try await etcd.leaderIndex()
                var acknowledged: [String: Int64] = [:]
                for i in 0..<5 { acknowledged["/e/\(i)"] = try await etcd.put("/e/\(i)".bytes, "\(i)".bytes).revision }
                cluster.kill(leader)
                // The first write may land in the election gap: it waits it out
                // within the client's bound, or is reported as outcome unknown.
                acknowledged["/e/5"] = try await putRetryingUnknown(etcd, "/e/5", "5")
                for i in 6..<30 {  // after the election: no error
                    acknowledged["/e/\(i)"] = try await etcd.put("/e/\(i)".bytes, "\(i)".bytes).revision
                }
                let read = try await etcd.range(.prefix("/e/".bytes))
                #expect(Dictionary(uniqueKeysWithValues: read.keyValues.map { ($0.key.string, $0.modRevision) }) == acknowledged)
                #expect(try await etcd.leaderIndex() != leader)
            }
        }

        @Test func withoutQuorumWritesFailAsUnavailableThenRecoverWithNothingLost() async throws {
            try await withCluster(unavailableAfter: .seconds(3)) { cluster, etcd in
                var acknowledged: [String: Int64] = [:]
                for i in 0..<10 { acknowledged["/q/\(i)"] = try await etcd.put("/q/\(i)".bytes, "\(i)".bytes).revision }
                let survivor = try await etcd.leaderIndex()  // the hardest case: the leader stays, alone
                for index in 0..<3 where index != survivor { cluster.kill(index) }

                // Writes fail, each within the client's bound plus one attempt's
                // timeout, until the lone member steps down and answers "no
                // leader", which the client reports as unavailable.
                let clock = ContinuousClock()
                let started = clock.now
                var sawUnavailable = false
                for attempt in 0..<10 where !sawUnavailable {
                    do {
                        try await etcd.put("/q/lost".bytes, "\(attempt)".bytes)
                        Issue.record("a write succeeded without a quorum")
                    } catch let error as EtcdError {
                        #expect(error.code == .unavailable || error.code == .outcomeUnknown, "\(error)")
                        sawUnavailable = error.code == .unavailable
                    }
                }
                #expect(sawUnavailable)
                print("no quorum: unavailable after \(clock.now - started)")
                // Reads fail the same way, and say so by name.
                let readError = await #expect(throws: EtcdError.self) { try await etcd.range(.prefix("/q/".bytes)) }
                #expect(readError?.code == .unavailable)

                for index in 0..<3 where index != survivor { try cluster.restart(index, waitForHealth: false) }
                for index in 0..<3 { try cluster.waitUntilHealthy(index) }
                acknowledged["/q/after"] = try await etcd.put("/q/after".bytes, "back".bytes).revision
                let read = try await etcd.range(.prefix("/q/".bytes))
                let stored = Dictionary(uniqueKeysWithValues: read.keyValues.map { ($0.key.string, $0.modRevision) })
                for (key, revision) in acknowledged {
                    #expect(stored[key] == revision, "acknowledged \(key)@\(revision) is \(String(describing: stored[key]))")
                }
            }
        }
    }
}
