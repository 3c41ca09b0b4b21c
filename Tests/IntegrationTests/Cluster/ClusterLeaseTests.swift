import EtcdTestSupport
import Foundation
import PropdClient
import PropdCore
import PropdEtcd
import PropdTestSupport
import Testing

/// `--etcd-lease`: the leases a node holds its part of the cluster by (the
/// timer election, its command handlers' announcement) are granted for that
/// many seconds, as etcd reports (`etcdctl lease timetolive`).
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterLeaseTests {
    @Test func aNodesLeasesLastTheSecondsItWasGiven() async throws {
        let etcd = try EtcdCluster(members: 1)
        let prefix = "/propd/lease"
        let node = try PropdProcess(extraArguments: ["--etcd", etcd.clientURLs[0], "--etcd-prefix", prefix, "--etcd-lease", "7"])
        let handler = try await RawHandler(["gate.open"], socket: node.socketPath)
        let endpoints = try etcd.clientURLs.map { try EtcdEndpoint($0) }
        try await withEtcdClient(EtcdClient.Configuration(endpoints: endpoints)) { client in
            let election = TimerHolder(etcd: client, prefix: prefix)
            #expect(try await election.pid(among: [node.process.processIdentifier]) == node.process.processIdentifier)
            let leader = try #require(try await client.leader(election.name))
            #expect(try await client.leaseGrantedTimeToLive(leader.lease) == 7)

            let serving = try #require(try await Self.servingKey(client, prefix: prefix), "the node's handlers were never announced")
            #expect(try await client.leaseGrantedTimeToLive(serving.lease) == 7)
        }
        _ = handler
    }

    /// The key announcing a node's handlers, once it is there (nil after `timeout`):
    /// read, else the first put under its prefix from a watch.
    static func servingKey(_ etcd: EtcdClient, prefix: String, timeout: Duration = .seconds(30)) async throws -> EtcdKeyValue? {
        let serving = EtcdKeyRange.prefix(Array((prefix + ".commands/serving/").utf8))
        let read = try await etcd.range(serving)
        if let first = read.keyValues.first { return first }
        struct Announced: Error { var keyValue: EtcdKeyValue }
        do {
            return try await withDeadline(timeout, waitingFor: "the handlers' announcement") {
                do {
                    try await etcd.watch(serving, from: read.revision + 1) { update in
                        guard case .events(let events) = update, let put = events.first(where: { $0.kind == .put }) else { return }
                        throw Announced(keyValue: put.keyValue)
                    }
                } catch let announced as Announced {
                    return announced.keyValue
                }
            }
        } catch is DeadlinePassed {
            return nil
        }
    }
}
