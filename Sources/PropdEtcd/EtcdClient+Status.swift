import EtcdAPI
import GRPCCore

/// One member's view of the cluster (etcd's `Maintenance.Status`).
public struct EtcdMemberStatus: Sendable, Hashable {
    public var endpoint: EtcdEndpoint
    public var memberID: UInt64
    /// The member it follows (itself when it leads), 0 when it has no leader.
    public var leaderID: UInt64
    public var revision: Int64
    public var raftTerm: UInt64
    public var databaseSize: Int64
    public var isLeader: Bool { leaderID != 0 && leaderID == memberID }
}

extension EtcdClient {
    /// Asks one member, without failing over, how it sees the cluster
    /// (waiting up to `requestTimeout` for a connection to it).
    ///
    /// ```swift
    /// let status = try await etcd.status(of: etcd.configuration.endpoints[0])
    /// print(status.isLeader, status.revision)
    /// ```
    public func status(of endpoint: EtcdEndpoint) async throws -> EtcdMemberStatus {
        guard let member = members.first(where: { $0.endpoint == endpoint }) else {
            throw EtcdError(.invalidEndpoint, "\(endpoint) is not one of this client's endpoints")
        }
        var options = callOptions
        options.waitForReady = true
        let response: Etcdserverpb_StatusResponse
        do {
            response = try await member.withConnection { try await $0.maintenance.status(.init(), options: options) }
        } catch {
            throw EtcdError(.unavailable, "\(endpoint) did not answer", cause: error)
        }
        return EtcdMemberStatus(
            endpoint: endpoint, memberID: response.header.memberID, leaderID: response.leader,
            revision: response.header.revision, raftTerm: response.raftTerm, databaseSize: response.dbSize)
    }
}
