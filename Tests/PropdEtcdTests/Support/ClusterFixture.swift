import EtcdTestSupport
import PropdEtcd
import Testing

/// Starts a three-member cluster and a client of all its members, runs
/// `body`, then stops both.
func withCluster<Result: Sendable>(
    unavailableAfter: Duration = .seconds(5),
    etcdArguments: [String] = [],
    _ body: (EtcdCluster, EtcdClient) async throws -> Result
) async throws -> Result {
    let cluster = try EtcdCluster(members: 3, extraArguments: etcdArguments)
    var configuration = EtcdClient.Configuration(endpoints: try cluster.clientURLs.map { try EtcdEndpoint($0) })
    configuration.unavailableAfter = unavailableAfter
    return try await withEtcdClient(configuration) { etcd in
        try await body(cluster, etcd)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}

extension Array where Element == UInt8 {
    var string: String { String(decoding: self, as: UTF8.self) }
}

extension EtcdClient {
    /// The index of the member that leads raft now, asking each in turn.
    func leaderIndex() async throws -> Int {
        for (index, endpoint) in configuration.endpoints.enumerated() {
            if let status = try? await status(of: endpoint), status.isLeader { return index }
        }
        throw EtcdError(.unavailable, "no member says it leads")
    }
}
