public import PropdCore

/// What one peer may do, worked out once per connection by
/// ``AccessPolicy/rights(for:)`` (names and supplementary groups are resolved
/// then, not on every call).
///
/// ```swift
/// let rights = policy.rights(for: peer)
/// try rights.check(.write, key)          // throws PermissionDenied(key)
/// switch rights.readScope(of: pattern) { // for Subscribe and List
/// case .all: …                           // every matching key, no filtering
/// case .someKeys: …                      // filter each key with allows(.read, key)
/// case .none: …                          // PermissionDenied(pattern)
/// }
/// ```
public struct AccessRights: Sendable, Hashable {
    /// How much of a pattern's keys a peer may read.
    public enum ReadScope: Sendable, Hashable {
        /// Every key the pattern matches.
        case all
        /// Some keys may be readable: check each with ``AccessRights/allows(_:_:)``.
        case someKeys
        /// No key the pattern matches.
        case none
    }

    public let peer: PeerCredentials
    /// The peer's groups as looked up when the rights were made (its primary
    /// gid and its user's supplementary groups; empty when unrestricted or
    /// when no rule names a group). A reload passes them back to
    /// ``AccessPolicy/rights(for:groups:)`` to avoid another lookup.
    public let groups: [UInt32]
    /// True for root, the daemon's own user, and everyone when there are no rules.
    public let isUnrestricted: Bool
    /// Patterns granted `read` or `write` (write implies read).
    let readable: [KeyPattern]
    let writable: [KeyPattern]

    /// Rights that allow everything.
    public static func unrestricted(_ peer: PeerCredentials) -> AccessRights {
        AccessRights(peer: peer, groups: [], isUnrestricted: true, readable: [], writable: [])
    }

    init(peer: PeerCredentials, groups: [UInt32], isUnrestricted: Bool, readable: [KeyPattern], writable: [KeyPattern]) {
        self.peer = peer
        self.groups = groups
        self.isUnrestricted = isUnrestricted
        self.readable = readable
        self.writable = writable
    }

    /// Whether the peer may read (or write) `key`.
    public func allows(_ mode: AccessMode, _ key: Key) -> Bool {
        if isUnrestricted { return true }
        let segments = key.segments
        let granted = mode == .write ? writable : readable
        return granted.contains { $0.matches(keySegments: segments) }
    }

    /// Throws ``PermissionDenied`` unless the peer may `mode` the key.
    public func check(_ mode: AccessMode, _ key: Key) throws(PermissionDenied) {
        guard allows(mode, key) else { throw PermissionDenied(key: key.rawValue, mode: mode) }
    }

    /// Throws for the first key (in the order given) the peer may not `mode`,
    /// so a Set or Delete is refused whole before anything is written.
    public func check(_ mode: AccessMode, _ keys: some Sequence<Key>) throws(PermissionDenied) {
        for key in keys { try check(mode, key) }
    }

    /// How many of the keys `pattern` matches the peer may read. `.all` is
    /// answered when one grant covers the whole pattern; a pattern covered only
    /// by several grants together answers `.someKeys`, which filters correctly.
    public func readScope(of pattern: KeyPattern) -> ReadScope {
        if isUnrestricted { return .all }
        if readable.contains(where: { $0.covers(pattern) }) { return .all }
        if readable.contains(where: { $0.overlaps(pattern) }) { return .someKeys }
        return .none
    }

    /// Throws `PermissionDenied(pattern)` when the peer may read no key the
    /// pattern matches (List, Bindings, Subscribe); otherwise returns how to
    /// filter the answer.
    public func checkRead(_ pattern: KeyPattern) throws(PermissionDenied) -> ReadScope {
        let scope = readScope(of: pattern)
        if scope == .none { throw PermissionDenied(key: pattern.rawValue, mode: .read) }
        return scope
    }

    /// Whether the peer may read every key `pattern` matches.
    public func mayRead(_ pattern: KeyPattern) -> Bool { readScope(of: pattern) == .all }

    /// Checks a `Bind` from this peer: it must be allowed to write `key` and
    /// to read every source, since the derived value would reveal them. A
    /// binding whose sources are only known when it runs (`flatMap { key(…) }`)
    /// could read any key, so it needs read on every key (`**`); it is refused
    /// as `PermissionDenied("**")` otherwise.
    ///
    /// Bindings from files in the bindings directory are the administrator's
    /// and are not checked.
    public func checkBinding(key: Key, sources: some Sequence<Key>, hasDynamicSources: Bool) throws(PermissionDenied) {
        try check(.write, key)
        try check(.read, sources)
        if hasDynamicSources, !mayRead(.all) { throw PermissionDenied(key: KeyPattern.all.rawValue, mode: .read) }
    }
}
