import EtcdTestSupport
import PropdEtcd
import Testing

extension EtcdClusterTests {
    @Suite struct ElectionTests {
        @Test func oneLeaderAtATimeAndTheNextTakesOverWhenItsLeaseDies() async throws {
            try await withCluster { _, etcd in
                let name = "/election/timers".bytes
                #expect(try await etcd.leader(name) == nil)

                let (leaders, seen) = AsyncStream.makeStream(of: String.self)
                let observer = Task { try await etcd.observe(name) { seen.yield($0.value.string) } }
                defer { observer.cancel() }

                // Leases long enough that a loaded machine's late keep-alive
                // never ends one; A's ends when its keep-alives stop.
                let leaseA = try await etcd.grantLease(ttl: 5)
                let keeperA = Task { try await etcd.keepAlive(leaseA) }
                let a = try await etcd.campaign(name, lease: leaseA.id, value: "node-a".bytes)
                #expect(try await etcd.leader(name)?.value.string == "node-a")

                let leaseB = try await etcd.grantLease(ttl: 10)
                let keeperB = Task { try await etcd.keepAlive(leaseB) }
                defer { keeperB.cancel() }
                let campaignB = Task { try await etcd.campaign(name, lease: leaseB.id, value: "node-b".bytes) }

                // B waits while A leads: A's proclamation still works, A is leader.
                try await etcd.proclaim(a, value: "node-a-2".bytes)
                #expect(try await etcd.leader(name)?.value.string == "node-a-2")

                // A dies (its keep-alives stop): its lease expires, B leads.
                keeperA.cancel()
                let b = try await withDeadline(.seconds(30), waitingFor: "node-b to be elected") {
                    try await campaignB.value
                }
                #expect(b.lease == leaseB.id)
                #expect(try await etcd.leader(name)?.value.string == "node-b")
                let stale = await #expect(throws: EtcdError.self) { try await etcd.proclaim(a, value: "late".bytes) }
                #expect(stale?.code == .notLeader || stale?.code == .leaseNotFound)

                // An observer saw every leader and proclamation, in order.
                let observed = try await withDeadline(.seconds(30), waitingFor: "three leader values") {
                    var values: [String] = []
                    for await value in leaders {
                        values.append(value)
                        if values.count == 3 { break }
                    }
                    return values
                }
                #expect(observed == ["node-a", "node-a-2", "node-b"])

                // Resigning hands over at once.
                try await etcd.resign(b)
                #expect(try await etcd.leader(name) == nil)
            }
        }
    }
}
