/// What a subscriber is told: a key's current value, a past value, a change,
/// or the end of the backlog.
public struct Event: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The current value of a matching key when the subscription starts.
        case initial
        /// A past value from history (`replay: N`).
        case replay
        /// A key was set (or a derived key produced a value).
        case set
        /// A key was deleted.
        case delete
        /// A derived key's evaluation failed; `error` says why, the value is kept.
        case error
        /// The backlog is over; live events follow. Key `""`.
        case synced
    }

    /// The key; `""` for `synced`.
    public var key: String
    public var kind: Kind
    public var value: JSONValue?
    public var revision: Revision
    public var error: String?

    public init(key: String, kind: Kind, value: JSONValue? = nil, revision: Revision, error: String? = nil) {
        self.key = key
        self.kind = kind
        self.value = value
        self.revision = revision
        self.error = error
    }

    /// The `synced` marker at the given store revision.
    public static func synced(at revision: Revision) -> Event {
        Event(key: "", kind: .synced, revision: revision)
    }
}
