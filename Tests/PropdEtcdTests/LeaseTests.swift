import PropdEtcd
import Testing

extension EtcdClusterTests {
    @Suite struct LeaseTests {
        @Test func anExpiredLeaseDeletesItsKeysAndAKeptOneDoesNot() async throws {
            try await withCluster { _, etcd in
                let kept = try await etcd.grantLease(ttl: 2)
                let dropped = try await etcd.grantLease(ttl: 2)
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
