import EtcdTestSupport
import Foundation
import PropdClient
import PropdCore
import PropdEtcd
import PropdTestSupport
import Testing

/// Deadlines in a cluster of real propd processes on a real etcd: one node,
/// the holder of the timer election, fires them; when it is SIGKILLed,
/// another takes over and fires what came due, each exactly once.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterTimerTests {
    @Test func theNextHolderFiresAKilledHoldersOpenThrottleAndDueExpiryOnce() async throws {
        let prefix = "/propd/timers"
        let nodes = try await TwoNodes(prefix: prefix)
        let nodeC = try PropdProcess(extraArguments: nodes.clusterArguments)
        let clientC = try await PropdClient.connect(to: nodeC.socketPath)
        let all = [(nodes.a, nodes.clientA), (nodes.b, nodes.clientB), (nodeC, clientC)]
        let endpoints = try nodes.etcd.clientURLs.map { try EtcdEndpoint($0) }

        try await withEtcdClient(EtcdClient.Configuration(endpoints: endpoints)) { etcd in
            let election = TimerHolder(etcd: etcd, prefix: prefix)
            let holderPID = try await election.pid(among: Set(all.map { $0.0.process.processIdentifier }))
            guard let (holder, holderClient) = all.first(where: { $0.0.process.processIdentifier == holderPID }) else {
                Issue.record("pid \(holderPID) is none of the nodes")
                return
            }
            let survivors = all.filter { $0.0 !== holder }
            // Stats says which node holds the election, as etcd does.
            let urls = nodes.etcd.clientURLs
            #expect(try await holderClient.stats().role == .cluster(etcdEndpoints: urls, timerHolder: true))
            for (_, client) in survivors {
                #expect(try await client.stats().role == .cluster(etcdEndpoints: urls, timerHolder: false))
            }
            let observer = EventCollector(survivors[0].1.observe(["t.out", "ttl.k"], initial: false))
            _ = try await observer.synced()

            // Both deadlines live in the holder's timer and in etcd only:
            // the holder computed them.
            try await holderClient.bind("t.out", "t.in.throttle(3s)")
            let cause = try await holderClient.set(["t.in": 1])
            let expiring = try await holderClient.set(["ttl.k": "lease"], ttl: 3000)
            // Within the window: neither deadline has come yet (3 s against two round trips).
            holder.kill()

            // A survivor wins the election once the holder's lease ends, and
            // fires both: they came due in the gap.
            let successor = try await election.pid(among: Set(survivors.map { $0.0.process.processIdentifier }))
            let events = try await observer.take(timeout: .seconds(60)) { events in
                events.contains { $0.key == "t.out" && $0.kind == .set }
                    && events.contains { $0.key == "ttl.k" && $0.kind == .delete }
            }
            let fire = try #require(events.first { $0.key == "t.out" && $0.kind == .set })
            let expiry = try #require(events.first { $0.key == "ttl.k" && $0.kind == .delete })
            #expect(fire.value == 1 && fire.revision > cause)
            #expect(expiry.revision > expiring)

            // Any second fire (by the other survivor, or the successor
            // again) would come before a write made after the first: the
            // history, on each survivor, has each fire once.
            let later = try await survivors[1].1.set(["ttl.k": "again"])
            _ = try await observer.take(timeout: .seconds(60)) { $0.contains { $0.revision == later } }
            for (node, client) in survivors {
                let throttled = try await client.history("t.out")
                #expect(throttled == [fire], "t.out on pid \(node.process.processIdentifier)")
                let expired = try await client.history("ttl.k")
                #expect(expired.map(\.kind) == [.set, .delete, .set], "ttl.k on pid \(node.process.processIdentifier)")
                #expect(expired.map(\.revision) == [later, expiry.revision, expiring])
            }
            #expect(observer.all.filter { $0.key == "t.out" && $0.kind == .set }.count == 1)
            #expect(observer.all.filter { $0.key == "ttl.k" && $0.kind == .delete }.count == 1)
            for (node, client) in survivors {
                let holds = node.process.processIdentifier == successor
                #expect(try await client.stats().role == .cluster(etcdEndpoints: urls, timerHolder: holds))
            }
        }
    }
}
