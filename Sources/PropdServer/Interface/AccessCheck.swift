public import PropdCore
public import PropdVarlink
import PropdWire

/// What a caller may do with a key.
public enum AccessRight: Sendable, Hashable {
    case read
    case write
}

/// The access decision the io.propd handlers ask for every key a call
/// touches; the daemon's configured rules implement it.
public protocol AccessCheck: Sendable {
    /// Whether the peer may exercise `right` on `key`.
    func allows(_ right: AccessRight, _ key: Key, _ peer: VarlinkPeerCredentials?) -> Bool
    /// Whether reads by this peer are restricted at all; when false, listings
    /// and subscriptions skip per-key checks.
    func filtersReads(for peer: VarlinkPeerCredentials?) -> Bool
    /// Whether the peer may read at least one key `pattern` matches (else a
    /// List, Bindings or Subscribe with it is refused).
    func mayReadSome(_ pattern: KeyPattern, _ peer: VarlinkPeerCredentials?) -> Bool
    /// Rises each time the rules change (a reload), so that what was decided
    /// under the old rules (a live subscription's filter) is decided again.
    var generation: UInt64 { get }
}

extension AccessCheck {
    /// Rules that never change.
    public var generation: UInt64 { 0 }

    /// Whether any call of this peer may be refused at all; when false, a
    /// write skips its per-key checks (each a walk over the call's keys).
    /// The same peers as ``filtersReads(for:)``: a peer's rights are either
    /// unrestricted (root's, the daemon's user's, everyone's without rules)
    /// or its rules', which restrict writes as well as reads.
    public func restricts(_ peer: VarlinkPeerCredentials?) -> Bool {
        filtersReads(for: peer)
    }
}

extension AccessCheck {
    /// Throws `PermissionDenied(key)` unless the peer may exercise `right` on `key`.
    func require(_ right: AccessRight, _ key: Key, _ peer: VarlinkPeerCredentials?) throws(VarlinkCallError) {
        guard allows(right, key, peer) else { throw VarlinkCallError(.permissionDenied(key: key.rawValue)) }
    }

    /// Throws `PermissionDenied(pattern)` when the peer may read no key `pattern` matches.
    func requireSome(_ pattern: KeyPattern, _ peer: VarlinkPeerCredentials?) throws(VarlinkCallError) {
        guard mayReadSome(pattern, peer) else { throw VarlinkCallError(.permissionDenied(key: pattern.rawValue)) }
    }
}

/// No rules: whoever can open the socket may do everything (the socket's
/// file mode is the only gate).
public struct AllowAll: AccessCheck {
    public init() {}
    public func allows(_ right: AccessRight, _ key: Key, _ peer: VarlinkPeerCredentials?) -> Bool { true }
    public func filtersReads(for peer: VarlinkPeerCredentials?) -> Bool { false }
    public func mayReadSome(_ pattern: KeyPattern, _ peer: VarlinkPeerCredentials?) -> Bool { true }
}
