import EtcdTestSupport
import Foundation
import PropdClient
import PropdCore
import PropdEtcd
import PropdTestSupport
import Testing

/// etcd compacts past a node's watch while the node is cut off from etcd (a
/// partition, through a ``LoopbackProxy``): when it is back, the node reads
/// the space again, and every live subscriber on it, who would otherwise
/// silently miss the revisions in between, is ended with `SlowConsumer` at
/// the last revision it was fully sent; resuming from there is
/// `RevisionCompacted`, from etcd's history.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterCompactionTests {
    @Test func compactionPastANodesWatchEndsItsSubscriptionsAsSlowConsumers() async throws {
        let etcd = try EtcdCluster(members: 1)
        let proxy = try LoopbackProxy(to: etcd.members[0].clientPort)
        defer { proxy.stop() }
        let prefix = ["--etcd-prefix", "/propd/gap"]
        let cutOff = try PropdProcess(extraArguments: ["--etcd", proxy.clientURL] + prefix)
        let other = try PropdProcess(extraArguments: ["--etcd", etcd.clientURLs[0]] + prefix)
        let client = try await PropdClient.connect(to: cutOff.socketPath)
        let otherClient = try await PropdClient.connect(to: other.socketPath)

        // Two subscribers on the node that will be cut off, one coalescing:
        // a skipped revision may hold the latest value of its keys too.
        var subscribers: [RawSocket] = []
        for coalesce in [false, true] {
            let subscriber = try RawSocket(path: cutOff.socketPath)
            #expect(subscriber.call(
                "io.propd.Subscribe", ["patterns": ["gap.**"], "initial": false, "coalesce": .bool(coalesce)], more: true))
            #expect(try await Self.event(subscriber)?.kind == "synced")
            subscribers.append(subscriber)
        }
        let seen = try await client.set(["gap.k": 0])
        for subscriber in subscribers { #expect(try await Self.event(subscriber)?.revision == seen.rawValue) }

        proxy.cut()
        var written: [Revision] = []
        for i in 1...3 { written.append(try await otherClient.set(["gap.k": .integer(Int64(i))])) }
        let endpoint = try EtcdEndpoint(etcd.clientURLs[0])
        try await withEtcdClient(EtcdClient.Configuration(endpoints: [endpoint])) { etcd in
            try await etcd.compact(upTo: written[2].rawValue)
        }
        proxy.restore()

        // Each subscriber is told it missed something, at the last revision it got whole.
        for subscriber in subscribers {
            let reply = try #require(try await subscriber.receive(timeout: .seconds(60)))
            #expect(reply["error"] == "io.propd.SlowConsumer", "\(reply)")
            #expect(reply["parameters"]?["revision"] == .integer(seen.rawValue))
        }
        // Resuming from there: etcd no longer has what came after it.
        let resumed = try RawSocket(path: cutOff.socketPath)
        #expect(resumed.call("io.propd.Subscribe", ["patterns": ["gap.**"], "since": .integer(seen.rawValue)], more: true))
        let refusal = try #require(try await resumed.receive())
        #expect(refusal["error"] == "io.propd.RevisionCompacted", "\(refusal)")
        #expect(refusal["parameters"]?["since"] == .integer(seen.rawValue))
        if case .integer(let oldest)? = refusal["parameters"]?["oldest"] {
            #expect(oldest > seen.rawValue + 1 && oldest <= written[2].rawValue + 1)
        } else {
            Issue.record("RevisionCompacted without oldest: \(refusal)")
        }

        // The node has the present again and follows what comes next.
        #expect(try await client.get(["gap.k"]).first?.value == 3)
        let observer = EventCollector(client.observe(["gap.**"], initial: false))
        _ = try await observer.synced()
        let next = try await otherClient.set(["gap.k": 4])
        let live = try await observer.take { $0.contains { $0.revision == next } }
        #expect(live.map(\.revision) == [next] && live.map(\.value) == [4])
    }

    struct Received {
        var kind: String
        var revision: Int64
    }

    /// The next event a raw subscriber receives (nil for an error or the end).
    static func event(_ socket: RawSocket) async throws -> Received? {
        guard let reply = try await socket.receive(), reply["error"] == nil,
            case .string(let kind)? = reply["parameters"]?["event"]?["kind"],
            case .integer(let revision)? = reply["parameters"]?["event"]?["revision"]
        else { return nil }
        return Received(kind: kind, revision: revision)
    }
}
