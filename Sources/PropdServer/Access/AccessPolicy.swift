public import PropdCore

/// The access rules of the running configuration, checked against the peer's
/// `SO_PEERCRED` credentials.
///
/// - Root (uid 0) and the daemon's own uid may do everything.
/// - With no rules, everyone who can open the socket may do everything: the
///   socket's file mode (0660, group `propd`, under systemd) is the only gate.
/// - With rules, any other peer may do exactly what the rules matching its uid,
///   its primary gid or one of its supplementary groups grant; `write`
///   implies `read`.
///
/// ```swift
/// let rights = config.access.rights(for: try await PeerCredentials.of(channel))
/// try rights.check(.read, key)
/// ```
public struct AccessPolicy: Sendable {
    public let rules: [AccessRule]
    /// The uid propd runs as; it may do everything, like root.
    public let daemonUID: UInt32
    let directory: any AccountDirectory

    public init(rules: [AccessRule], daemonUID: UInt32, directory: any AccountDirectory = SystemAccountDirectory()) {
        self.rules = rules
        self.daemonUID = daemonUID
        self.directory = directory
    }

    /// No rules: the socket's permissions are the only gate.
    public var isOpen: Bool { rules.isEmpty }

    /// The rights of one peer. Looks up its supplementary groups (NSS): call it
    /// once per connection and keep the result.
    public func rights(for peer: PeerCredentials) -> AccessRights {
        rights(for: peer, groups: nil)
    }

    /// The rights of one peer whose groups are already known (from the
    /// ``AccessRights/groups`` of earlier rights): after a SIGHUP reload, the
    /// open connections get the new rules' rights without new lookups.
    ///
    /// ```swift
    /// connection.rights = newPolicy.rights(for: connection.rights.peer, groups: connection.rights.groups)
    /// ```
    public func rights(for peer: PeerCredentials, groups knownGroups: [UInt32]?) -> AccessRights {
        if isOpen || peer.uid == 0 || peer.uid == daemonUID { return .unrestricted(peer) }
        let needsGroups = rules.contains { $0.subjects.contains { if case .group = $0 { true } else { false } } }
        var groups: Set<UInt32> = [peer.gid]
        if let knownGroups, !knownGroups.isEmpty {
            groups.formUnion(knownGroups)
        } else if needsGroups {
            groups.formUnion(directory.groupIDs(ofUser: peer.uid, primaryGroup: peer.gid))
        }
        var readable: [KeyPattern] = []
        var writable: [KeyPattern] = []
        for rule in rules where rule.subjects.contains(where: { applies($0, uid: peer.uid, groups: groups) }) {
            readable += rule.read + rule.write
            writable += rule.write
        }
        let looked = needsGroups || !(knownGroups ?? []).isEmpty
        return AccessRights(
            peer: peer, groups: looked ? groups.sorted() : [], isUnrestricted: false,
            readable: unique(readable), writable: unique(writable))
    }

    /// One check without keeping the rights (looks the groups up each time).
    public func check(peer: PeerCredentials, _ mode: AccessMode, key: Key) throws(PermissionDenied) {
        try rights(for: peer).check(mode, key)
    }

    private func applies(_ subject: AccessSubject, uid: UInt32, groups: Set<UInt32>) -> Bool {
        switch subject {
        case .everyone: return true
        case .user(let id): return id == uid
        case .group(let id): return groups.contains(id)
        }
    }

    /// Drops repeated patterns and those another one covers, so checks stay short.
    private func unique(_ patterns: [KeyPattern]) -> [KeyPattern] {
        var kept: [KeyPattern] = []
        for (i, pattern) in patterns.enumerated() {
            let coveredByOther = patterns.enumerated().contains { j, other in
                j != i && other.covers(pattern) && (!pattern.covers(other) || j < i)
            }
            if !coveredByOther { kept.append(pattern) }
        }
        return kept
    }
}
