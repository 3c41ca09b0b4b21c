import EtcdTestSupport
import Logging
import PropdCluster
import PropdCore
import PropdService
import PropdStore
import PropdTestSupport
import Testing

/// A deadline fired by two nodes at once — a holder deposed without knowing
/// it yet, and its successor — applies once: each fire is a transaction
/// guarded by the operator state or expiring key it read, so the second
/// finds the first's revision, runs again on it, and finds nothing due.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct TimerFenceTests {
    @Test func twoNodesFiringTheSameDeadlinesApplyEachOnce() async throws {
        try await withNodes(2, prefix: "/propd/fence") { _, nodes in
            // Both fire deadlines (as a deposed holder and its successor do
            // until the first hears of its lost lease).
            let services = try nodes.map { node in
                try PropertyService(store: node, firesTimers: true, logger: Logger(label: "fence"))
            }
            defer { for service in services { service.shutdown() } }
            for (node, service) in zip(nodes, services) {
                node.onForeignEngineChange { service.spaceChangedElsewhere() }
            }
            _ = try await services[0].bind(Key("t.out"), expression: "t.in.throttle(200ms)")
            let subscription = try await services[1].subscribe(
                SubscriptionRequest(patterns: [KeyPattern("t.out"), KeyPattern("ttl.*")], initial: false))
            let feed = EventCollector(subscription)
            _ = try await feed.take("synced") { $0.last?.kind == .synced }

            let rounds = 4
            var causes: [Revision] = []
            for round in 1...rounds {
                // Written on either node: the other learns the deadline from etcd.
                let writer = services[round % 2]
                causes.append(try await writer.set([Key("t.in"): .integer(Int64(round))]))
                _ = try await writer.set([Key("ttl.k\(round)"): .integer(Int64(round))], ttl: 200)
                // Both may fire in one revision, the expiry first.
                _ = try await feed.take("t.out = \(round) and ttl.k\(round) expired") { events in
                    events.contains { $0.key == "t.out" && $0.value == .integer(Int64(round)) }
                        && events.contains { $0.key == "ttl.k\(round)" && $0.kind == .delete }
                }
            }
            // A write after every fire: a second fire of any deadline would be before it.
            let later = try await services[0].set([Key("t.end"): true])
            await nodes[1].wait(for: later)
            // History is an etcd round trip the cluster store waits for
            // synchronously: off the test's cooperative threads.
            let reader = services[1]
            let throttled = try await offThePool { try reader.history(of: Key("t.out"), limit: nil, before: nil) }
            #expect(throttled.map(\.value) == (1...rounds).reversed().map { .integer(Int64($0)) })
            #expect(zip(throttled.reversed().map(\.revision), causes).allSatisfy { $0 > $1 })
            for round in 1...rounds {
                let expiring = try await offThePool { try reader.history(of: Key("ttl.k\(round)"), limit: nil, before: nil) }
                #expect(expiring.map(\.kind) == [.delete, .set], "ttl.k\(round)")
            }
        }
    }
}
