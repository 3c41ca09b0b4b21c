import EtcdTestSupport
import PropdEtcd
import Testing

extension EtcdClusterTests {
    @Suite struct LeaseTests {
        @Test func anExpiredLeaseDeletesItsKeysAndAKeptOneDoesNot() async throws {
            try await withCluster { _, etcd in
                // Five seconds, not less: a loaded CI machine may delay one
                // renewal by seconds, and then the kept lease would end too.
                let kept = try await etcd.grantLease(ttl: 5)
                let dropped = try await etcd.grantLease(ttl: 5)
                let start = try await etcd.put("/lease/kept".bytes, "k".bytes, lease: kept.id).revision
                try await etcd.put("/lease/dropped".bytes, "d".bytes, lease: dropped.id)
                let keeper = Task { try await etcd.keepAlive(kept) }
                defer { keeper.cancel() }

                // Waits for etcd's delete event, not for time.
                let watch = WatchRecorder(etcd, .prefix("/lease/".bytes), from: start)
                let events = try await watch.events(3)
                #expect(events.map(\.kind) == [.put, .put, .delete])
                #expect(events.last?.keyValue.key.string == "/lease/dropped")
                #expect(try await etcd.leaseTimeToLive(dropped.id) == nil)

                // The kept lease outlived the other's TTL.
                #expect(try await etcd.range(.key("/lease/kept".bytes)).keyValues.map(\.value.string) == ["k"])
                #expect(try await etcd.leaseTimeToLive(kept.id) != nil)

                try await etcd.revokeLease(kept.id)
                #expect(try await etcd.range(.prefix("/lease/".bytes)).keyValues.isEmpty)
                let gone = await #expect(throws: EtcdError.self) { try await etcd.put("/lease/x".bytes, [], lease: kept.id) }
                #expect(gone?.code == .leaseNotFound)
            }
        }

        /// SIGSTOP, not a kill: the member renewing the lease keeps its
        /// connection open and answers nothing; the renewals go on through
        /// another member before the lease runs out.
        @Test func aKeepAliveLeavesAMemberThatStopsAnswering() async throws {
            try await withCluster { cluster, etcd in
                // The kept lease must outlive the freeze through another
                // member: 4 s leaves a loaded machine room to notice the
                // silence (two renewals' time) and renew elsewhere.
                let kept = try await etcd.grantLease(ttl: 4)
                let witness = try await etcd.grantLease(ttl: 12)
                let start = try await etcd.put("/frozen/kept".bytes, "k".bytes, lease: kept.id).revision
                try await etcd.put("/frozen/witness".bytes, "w".bytes, lease: witness.id)
                // The keeper renews through member 0, which it prefers.
                let keeper = Task { try await etcd.keepAlive(kept) }
                defer { keeper.cancel() }
                let urls = cluster.clientURLs
                let configuration = EtcdClient.Configuration(endpoints: try [urls[1], urls[2], urls[0]].map { try EtcdEndpoint($0) })
                try await withEtcdClient(configuration) { other in
                    let watch = WatchRecorder(other, .prefix("/frozen/".bytes), from: start)
                    cluster.freeze(0)
                    // Thawed before the clients end: a client's connection
                    // to a frozen member waits for it to close.
                    defer { cluster.thaw(0) }
                    // Waits for the witness to expire (three of the kept
                    // lease's TTLs after the freeze), not for time.
                    let events = try await watch.events(3, timeout: .seconds(90))
                    #expect(events.map(\.kind) == [.put, .put, .delete])
                    #expect(events.last?.keyValue.key.string == "/frozen/witness")
                    #expect(try await other.range(.key("/frozen/kept".bytes)).keyValues.map(\.value.string) == ["k"])
                }
            }
        }

        @Test func keepAliveReportsARevokedLease() async throws {
            try await withCluster { _, etcd in
                let lease = try await etcd.grantLease(ttl: 3)
                let keeper = Task { try await etcd.keepAlive(lease) }
                try await etcd.revokeLease(lease.id)
                let failure = try await withDeadline(.seconds(30), waitingFor: "keep-alive to fail") {
                    () async -> (any Error)? in
                    if case .failure(let error) = await keeper.result { error } else { nil }
                }
                #expect((failure as? EtcdError)?.code == .leaseNotFound, "\(String(describing: failure))")
            }
        }
    }
}
