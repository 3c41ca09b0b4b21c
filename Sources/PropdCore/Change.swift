/// One key's change within a revision: a new value, a deletion, or (for a
/// derived key) a new evaluation error with the value kept.
public struct Change: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case set(JSONValue)
        case delete
        /// A derived key failed to evaluate; its last value stays.
        case error(String)
    }

    public var key: Key
    public var kind: Kind
    /// For an `.error` change: the value the property kept, which the
    /// `error` event carries (as History and `initial` events of the same
    /// state do). Filled in by the store; `nil` for other kinds.
    public var kept: JSONValue?

    public init(key: Key, kind: Kind, kept: JSONValue? = nil) {
        self.key = key
        self.kind = kind
        self.kept = kept
    }

    public static func set(_ key: Key, _ value: JSONValue) -> Change { Change(key: key, kind: .set(value)) }
    public static func delete(_ key: Key) -> Change { Change(key: key, kind: .delete) }

    /// The subscriber's view of this change at `revision`.
    public func event(at revision: Revision) -> Event {
        switch kind {
        case .set(let v): return Event(key: key.rawValue, kind: .set, value: v, revision: revision)
        case .delete: return Event(key: key.rawValue, kind: .delete, revision: revision)
        case .error(let message):
            return Event(key: key.rawValue, kind: .error, value: kept, revision: revision, error: message)
        }
    }
}

/// Everything one committed write request changed: the keys the client wrote
/// and the derived keys the bindings recomputed, all at one revision.
public struct ChangeSet: Sendable, Hashable {
    public var revision: Revision
    public var changes: [Change]

    public init(revision: Revision, changes: [Change]) {
        self.revision = revision
        self.changes = changes
    }
}
