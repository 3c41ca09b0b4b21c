import EtcdAPI
import GRPCCore

/// A lease: keys attached to it are deleted when it expires or is revoked.
public struct EtcdLease: Sendable, Hashable {
    public var id: Int64
    /// The time to live etcd granted, in seconds (etcd may raise a short one).
    public var ttl: Int64
}

extension EtcdClient {
    /// Grants a lease that expires `ttl` seconds after its last keep-alive.
    ///
    /// ```swift
    /// let lease = try await etcd.grantLease(ttl: 5)
    /// try await etcd.put(key, value, lease: lease.id)   // gone 5 s after keep-alives stop
    /// ```
    public func grantLease(ttl: Int64) async throws -> EtcdLease {
        var request = Etcdserverpb_LeaseGrantRequest()
        request.ttl = ttl
        let response = try await withFailover(.unsafe) { member in
            try await member.lease.leaseGrant(request, metadata: EtcdMember.requireLeader, options: callOptions)
        }
        if !response.error.isEmpty { throw EtcdError(.rejected, response.error) }
        return EtcdLease(id: response.id, ttl: response.ttl)
    }

    /// Ends a lease now, deleting its keys.
    public func revokeLease(_ id: Int64) async throws {
        var request = Etcdserverpb_LeaseRevokeRequest()
        request.id = id
        // Revoking twice is "lease not found": safe to replay.
        _ = try await withFailover(.safe) { member in
            try await member.lease.leaseRevoke(request, metadata: EtcdMember.requireLeader, options: callOptions)
        }
    }

    /// The seconds a lease has left, or nil when it has expired or was revoked.
    public func leaseTimeToLive(_ id: Int64) async throws -> Int64? {
        let response = try await timeToLive(of: id)
        return response.ttl > 0 ? response.ttl : nil
    }

    /// The time to live a lease was granted with, in seconds, or nil when it
    /// has expired or was revoked (`etcdctl lease timetolive` shows both).
    public func leaseGrantedTimeToLive(_ id: Int64) async throws -> Int64? {
        let response = try await timeToLive(of: id)
        return response.ttl > 0 ? response.grantedTtl : nil
    }

    private func timeToLive(of id: Int64) async throws -> Etcdserverpb_LeaseTimeToLiveResponse {
        var request = Etcdserverpb_LeaseTimeToLiveRequest()
        request.id = id
        return try await withFailover(.safe) { member in
            try await member.lease.leaseTimeToLive(request, metadata: EtcdMember.requireLeader, options: callOptions)
        }
    }

    /// Keeps a lease alive, renewing it every third of its TTL, until the
    /// task is cancelled. Throws ``EtcdError/Code/leaseNotFound`` when etcd
    /// says the lease is gone (it expired while no member could be reached,
    /// or someone revoked it): its keys are deleted by then. A member that
    /// answers two renewals in a row with nothing (it hangs) is left for
    /// another, which renews the lease or says it is gone.
    ///
    /// ```swift
    /// group.addTask { try await etcd.keepAlive(lease) }
    /// ```
    public func keepAlive(_ lease: EtcdLease) async throws -> Never {
        let request = Etcdserverpb_LeaseKeepAliveRequest.with { $0.id = lease.id }
        let interval = Duration.milliseconds(max(lease.ttl * 1000 / 3, 100))
        let options = streamOptions
        while true {
            for member in memberOrder() {
                let heard = StreamSilence()
                do {
                    try await member.withConnection { connection in
                        try await connection.lease.leaseKeepAlive(
                            metadata: EtcdMember.requireLeader,
                            options: options,
                            requestProducer: { writer in
                                while true {
                                    try await writer.write(request)
                                    try await Task.sleep(for: interval)
                                    if heard.silence > interval * 2 { throw StreamSilence.Exceeded() }
                                }
                            },
                            onResponse: { response in
                                for try await message in response.messages {
                                    heard.heard()
                                    if message.ttl <= 0 {
                                        throw EtcdError(.leaseNotFound, "lease \(lease.id) expired or was revoked")
                                    }
                                }
                            })
                    }
                } catch {
                    try Self.continueStream(after: heard.cause(of: error, limit: interval * 2, on: member.endpoint))
                }
                if Task.isCancelled { throw CancellationError() }
            }
            try await Task.sleep(for: min(interval, .milliseconds(500)))
        }
    }
}
