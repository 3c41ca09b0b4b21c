public import PropdCore
public import PropdVarlink
import Synchronization

/// The configured access rules as the handlers ask them. Each peer's rights
/// (its groups come from NSS) are computed once and kept: a connection's
/// credentials never change, and a reload makes a new check.
public final class PolicyAccessCheck: AccessCheck {
    public let policy: AccessPolicy
    private let cache = Mutex<[PeerCredentials: AccessRights]>([:])

    public init(policy: AccessPolicy) {
        self.policy = policy
    }

    private func rights(_ peer: VarlinkPeerCredentials?) -> AccessRights? {
        guard let peer else { return nil }
        // Rights depend on uid and gid only: one cache entry for all of a user's processes.
        let credentials = PeerCredentials(uid: peer.uid, gid: peer.gid, pid: 0)
        if let cached = cache.withLock({ $0[credentials] }) { return cached }
        let rights = policy.rights(for: credentials)
        cache.withLock { cache in
            if cache.count > 4096 { cache.removeAll() }
            cache[credentials] = rights
        }
        return rights
    }

    public func allows(_ right: AccessRight, _ key: Key, _ peer: VarlinkPeerCredentials?) -> Bool {
        if policy.isOpen { return true }
        // Without credentials nobody can be matched to a rule: deny.
        guard let rights = rights(peer) else { return false }
        return rights.allows(right == .read ? .read : .write, key)
    }

    public func mayReadSome(_ pattern: KeyPattern, _ peer: VarlinkPeerCredentials?) -> Bool {
        if policy.isOpen { return true }
        guard let rights = rights(peer) else { return false }
        return rights.readScope(of: pattern) != .none
    }

    public func filtersReads(for peer: VarlinkPeerCredentials?) -> Bool {
        if policy.isOpen { return false }
        return !(rights(peer)?.isUnrestricted ?? false)
    }
}
