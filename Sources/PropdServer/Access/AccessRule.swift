public import PropdCore

/// Who a rule applies to, with names already resolved to numeric ids.
public enum AccessSubject: Sendable, Hashable, CustomStringConvertible {
    /// A user id; matches a peer whose uid is this.
    case user(UInt32)
    /// A group id; matches a peer whose primary or supplementary groups hold it.
    case group(UInt32)
    /// Every peer that can open the socket (`"*"` in the config's `users:`).
    case everyone

    public var description: String {
        switch self {
        case .user(let uid): return "uid \(uid)"
        case .group(let gid): return "gid \(gid)"
        case .everyone: return "everyone"
        }
    }
}

/// One grant of the config's `access:` list: these subjects may read the keys
/// of `read` and write (and so also read) the keys of `write`.
///
/// ```yaml
/// access:
///   - users: [alice, 1001]
///     groups: [kiosk]
///     read: ["ui.**"]
///     write: ["ui.login.*"]
/// ```
/// Rules only add rights; there is no deny rule. A peer holds the union of the
/// rules whose subjects match it.
public struct AccessRule: Sendable, Hashable {
    public var subjects: [AccessSubject]
    public var read: [KeyPattern]
    public var write: [KeyPattern]
    /// Where the rule was declared (`FILE:LINE`), for logs; nil when built in code.
    public var origin: String?

    public init(subjects: [AccessSubject], read: [KeyPattern] = [], write: [KeyPattern] = [], origin: String? = nil) {
        self.subjects = subjects
        self.read = read
        self.write = write
        self.origin = origin
    }
}
