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
                // never ends one (a 5-second lease ran out before A's own
                // proclamation in a CI run, with every core busy); A's ends
                // when its keep-alives stop.
                let leaseA = try await etcd.grantLease(ttl: 15)
                let keeperA = Task { try await etcd.keepAlive(leaseA) }
                let a = try await etcd.campaign(name, lease: leaseA.id, value: "node-a".bytes)
                #expect(try await etcd.leader(name)?.value.string == "node-a")

                let leaseB = try await etcd.grantLease(ttl: 30)
                let keeperB = Task { try await etcd.keepAlive(leaseB) }
                defer { keeperB.cancel() }
                let campaignB = Task { try await etcd.campaign(name, lease: leaseB.id, value: "node-b".bytes) }

                // B waits while A leads: A's proclamation still works, A is leader.
                try await etcd.proclaim(a, value: "node-a-2".bytes)
                #expect(try await etcd.leader(name)?.value.string == "node-a-2")

                // A dies (its keep-alives stop): its lease expires, B leads.
                keeperA.cancel()
                let b = try await withDeadline(.seconds(60), waitingFor: "node-b to be elected") {
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

        /// SIGSTOP, not a kill, under a campaign that waits: the member it
        /// waits on keeps the connection open and answers nothing, so only
        /// the campaign's own probes tell it from a member that waits too.
        @Test func aWaitingCampaignLeavesAMemberThatStopsAnswering() async throws {
            try await withCluster { cluster, etcd in
                let name = "/election/frozen".bytes
                let urls = cluster.clientURLs
                // A never goes through member 0; B's client prefers it.
                let configuration = EtcdClient.Configuration(endpoints: try [urls[1], urls[2]].map { try EtcdEndpoint($0) })
                try await withEtcdClient(configuration) { other in
                    let leaseA = try await other.grantLease(ttl: 10)
                    let keeperA = Task { try await other.keepAlive(leaseA) }
                    defer { keeperA.cancel() }
                    let a = try await other.campaign(name, lease: leaseA.id, value: "node-a".bytes)

                    // B's campaign waits on member 0 once its key is there.
                    let queue = WatchRecorder(other, .prefix(name), from: a.revision + 1)
                    let leaseB = try await etcd.grantLease(ttl: 15)
                    let keeperB = Task { try await etcd.keepAlive(leaseB) }
                    defer { keeperB.cancel() }
                    let campaignB = Task { try await etcd.campaign(name, lease: leaseB.id, value: "node-b".bytes) }
                    defer { campaignB.cancel() }
                    let queued = try await queue.events(1)
                    #expect(queued.first?.keyValue.lease == leaseB.id)

                    cluster.freeze(0)
                    // Thawed before the clients end: a client's connection
                    // to a frozen member waits for it to close.
                    defer { cluster.thaw(0) }
                    try await other.resign(a)
                    let b = try await withDeadline(.seconds(60), waitingFor: "B to learn that it leads") {
                        try await withTaskCancellationHandler {
                            try await campaignB.value
                        } onCancel: {
                            campaignB.cancel()
                        }
                    }
                    #expect(b.lease == leaseB.id)
                    #expect(try await other.leader(name)?.value.string == "node-b")
                }
            }
        }
    }
}
