import EtcdAPI
import Foundation
import GRPCCore
import Synchronization

/// Proof of leadership in an election: the campaigner's key, which
/// transactions can compare against to act only while still leading.
public struct EtcdLeaderKey: Sendable, Hashable {
    public var name: [UInt8]
    public var key: [UInt8]
    /// The key's create revision: `EtcdCompare(.key(key), .equal,
    /// .createRevision(revision))` holds exactly while this leadership lasts.
    public var revision: Int64
    public var lease: Int64

    init(_ key: V3electionpb_LeaderKey) {
        name = Array(key.name)
        self.key = Array(key.key)
        revision = key.rev
        lease = key.lease
    }

    var message: V3electionpb_LeaderKey {
        var key = V3electionpb_LeaderKey()
        key.name = Data(name)
        key.key = Data(self.key)
        key.rev = revision
        key.lease = lease
        return key
    }
}

/// etcd's election service (`v3election`): one leader per election name,
/// held by a lease; when the leader's lease ends the next campaigner leads.
///
/// ```swift
/// let lease = try await etcd.grantLease(ttl: 5)
/// group.addTask { try await etcd.keepAlive(lease) }
/// let leadership = try await etcd.campaign(Array("/propd/timers".utf8), lease: lease.id, value: Array("node-a".utf8))
/// // ... lead; guard writes with EtcdCompare(.key(leadership.key), .equal, .createRevision(leadership.revision))
/// try await etcd.resign(leadership)
/// ```
extension EtcdClient {
    /// Waits until this lease leads the election, then returns its leader key.
    /// Survives member failures, a member that hangs included (a campaign
    /// on the same lease resumes on another member).
    public func campaign(_ name: [UInt8], lease: Int64, value: [UInt8]) async throws -> EtcdLeaderKey {
        let request = V3electionpb_CampaignRequest.with {
            $0.name = Data(name)
            $0.lease = lease
            $0.value = Data(value)
        }
        let options = streamOptions
        let probe = callOptions
        let interval = configuration.requestTimeout
        // Campaigning again with the same lease finds its own key: safe to replay.
        let response = try await withFailover(.safe) { member in
            try await withThrowingTaskGroup(of: V3electionpb_CampaignResponse?.self) { group in
                group.addTask {
                    try await member.election.campaign(request, metadata: EtcdMember.requireLeader, options: options)
                }
                // A campaign answers only once it leads, so its silence says
                // nothing; a status request every `requestTimeout` tells a
                // member that waits from one that hangs, whose unanswered
                // probe ends the attempt and moves the campaign on.
                group.addTask {
                    while true {
                        try await Task.sleep(for: interval)
                        _ = try await member.maintenance.status(.init(), options: probe)
                    }
                }
                defer { group.cancelAll() }
                while let answer = try await group.next() {
                    if let answer { return answer }
                }
                throw CancellationError()
            }
        }
        return EtcdLeaderKey(response.leader)
    }

    /// The current leader's key and value, or nil when nobody leads.
    public func leader(_ name: [UInt8]) async throws -> EtcdKeyValue? {
        var request = V3electionpb_LeaderRequest()
        request.name = Data(name)
        do {
            let response = try await withFailover(.safe) { member in
                try await member.election.leader(request, metadata: EtcdMember.requireLeader, options: callOptions)
            }
            return response.hasKv ? EtcdKeyValue(response.kv) : nil
        } catch let error as EtcdError where error.message == "election: no leader" {
            return nil
        }
    }

    /// Replaces the value the leader announces, while it still leads
    /// (else ``EtcdError/Code/notLeader``).
    public func proclaim(_ leadership: EtcdLeaderKey, value: [UInt8]) async throws {
        var request = V3electionpb_ProclaimRequest()
        request.leader = leadership.message
        request.value = Data(value)
        _ = try await withFailover(.safe) { member in
            try await member.election.proclaim(request, metadata: EtcdMember.requireLeader, options: callOptions)
        }
    }

    /// Gives up leadership so the next campaigner leads at once.
    public func resign(_ leadership: EtcdLeaderKey) async throws {
        var request = V3electionpb_ResignRequest()
        request.leader = leadership.message
        _ = try await withFailover(.safe) { member in
            try await member.election.resign(request, metadata: EtcdMember.requireLeader, options: callOptions)
        }
    }

    /// Calls `onLeader` with each leader of the election and each value it
    /// proclaims, in order, until the task is cancelled or `onLeader`
    /// throws; waits while nobody leads. Moves to another member when its
    /// member fails, without repeating what it already delivered.
    ///
    /// ```swift
    /// try await etcd.observe(Array("/propd/timers".utf8)) { leader in
    ///     print("timers now on", String(decoding: leader.value, as: UTF8.self))
    /// }
    /// ```
    public func observe(
        _ name: [UInt8], onLeader: @escaping @Sendable (EtcdKeyValue) async throws -> Void
    ) async throws -> Never {
        let request = V3electionpb_LeaderRequest.with { $0.name = Data(name) }
        // etcd's Observe starts with the current leader: after a reconnect,
        // that one was delivered already. (Not a revision order: a waiting
        // campaigner's key is older than the leader's last proclamation.)
        let lastDelivered = Mutex<EtcdKeyValue?>(nil)
        let options = streamOptions
        while true {
            for member in memberOrder() {
                do {
                    try await member.withConnection { connection in
                        try await connection.election.observe(
                            request, metadata: EtcdMember.requireLeader, options: options
                        ) { response in
                            for try await message in response.messages where message.hasKv {
                                let leader = EtcdKeyValue(message.kv)
                                let isNew = lastDelivered.withLock { last in
                                    guard last?.key != leader.key || last?.modRevision != leader.modRevision else {
                                        return false
                                    }
                                    last = leader
                                    return true
                                }
                                if isNew { try await onLeader(leader) }
                            }
                        }
                    }
                } catch {
                    try Self.continueStream(after: error)
                }
                if Task.isCancelled { throw CancellationError() }
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
