public import PropdEtcd

/// The cluster's timer election: the one node that fires the space's
/// deadlines (time operators, expiring keys) is the leader of the etcd
/// election `PREFIX.timers`, held by a lease of `ttl` seconds that the node
/// keeps alive. When the holder dies its lease expires and the next
/// campaigner leads; a holder that stops resigns by revoking its lease, so
/// the next one leads at once.
///
/// ```swift
/// let election = TimerElection(prefix: "/propd/site", holder: "h1 pid 4242")
/// let campaign = Task { await election.run(on: etcd) { holds in service.setFiresTimers(holds) } }
/// // at stop: campaign.cancel(); await campaign.value
/// ```
public struct TimerElection: Sendable {
    /// The election's name in etcd: beside the space's prefix, not under
    /// it, so its keys never enter a node's mirror.
    public let name: [UInt8]
    /// What the holder announces (`etcdctl elect -l NAME` prints it).
    public let holder: [UInt8]
    /// The lease's time to live in seconds: how long the cluster goes
    /// without a holder after the holder dies.
    public let ttl: Int64

    public init(prefix: String, holder: String, ttl: Int64 = 5) {
        var base = Array(prefix.utf8)
        while base.last == UInt8(ascii: "/") { base.removeLast() }
        name = base + Array(".timers".utf8)
        self.holder = Array(holder.utf8)
        self.ttl = ttl
    }

    /// Leadership ended while the lease lived: the election's key was
    /// deleted, or another campaigner leads.
    struct LeadershipLost: Error {}

    /// Campaigns until cancelled: `onChange(true)` once this node leads,
    /// `onChange(false)` when its lease or its leadership is gone (then it
    /// campaigns again on a new lease) and when it stops.
    public func run(on etcd: EtcdClient, onChange: @escaping @Sendable (Bool) -> Void) async {
        var pause = Duration.milliseconds(100)
        while !Task.isCancelled {
            var lease: EtcdLease?
            do {
                let granted = try await etcd.grantLease(ttl: ttl)
                lease = granted
                pause = .milliseconds(100)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await etcd.keepAlive(granted) }
                    group.addTask { [name, holder] in
                        let leadership = try await etcd.campaign(name, lease: granted.id, value: holder)
                        onChange(true)
                        try await etcd.observe(name) { leader in
                            if leader.key != leadership.key { throw LeadershipLost() }
                        }
                    }
                    // Neither task returns: the first to throw ends the term.
                    try await group.next()
                }
            } catch {
                // The lease expired, leadership moved, etcd is unreachable,
                // or the node stops: in every case this node no longer fires.
            }
            onChange(false)
            if let lease {
                // Not cancelled with the campaign: a successor should lead
                // now, not a lease's time to live later.
                await Task { try? await etcd.revokeLease(lease.id) }.value
            }
            if Task.isCancelled { return }
            // Retry pacing while etcd refuses, not a synchronization.
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
    }
}
