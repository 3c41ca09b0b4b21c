public import PropdCore

/// What a `Subscribe` call asks for, validated.
///
/// The backlog follows the contract: `since` replaces both `replay` and
/// `initial`; `replay` replaces `initial`; `initial` defaults to true.
///
/// ```swift
/// let request = try SubscriptionRequest(patterns: [try KeyPattern("room.**")], replay: 5)
/// request.backlog  // .replay(5)
/// ```
public struct SubscriptionRequest: Sendable, Hashable {
    /// Which events come before the `synced` marker.
    public enum Backlog: Sendable, Hashable {
        /// One `initial` event per existing matching key (its current value).
        case initial
        /// The last N values of each matching key, oldest first, kind `replay`.
        case replay(Int)
        /// Every matching change with a revision above this one, from history.
        case since(Revision)
        /// Nothing: only `synced`, then live events (`initial: false`).
        case none
    }

    public let patterns: [KeyPattern]
    public let backlog: Backlog
    /// Whether a lagging subscriber gets only the latest pending value per key
    /// instead of being ended with `SlowConsumer`.
    public let coalesce: Bool

    /// Validates the parameters of `Subscribe` as the wire decoded them.
    ///
    /// - Throws: ``SubscriptionError/invalidParameter(name:reason:)`` when
    ///   `patterns` is empty, or `since` or `replay` is negative.
    public init(
        patterns: [KeyPattern], since: Revision? = nil, replay: Int? = nil, initial: Bool? = nil,
        coalesce: Bool? = nil
    ) throws(SubscriptionError) {
        guard !patterns.isEmpty else {
            throw .invalidParameter(name: "patterns", reason: "at least one pattern is required")
        }
        if let since {
            guard since >= .none else {
                throw .invalidParameter(name: "since", reason: "must be 0 or more, got \(since)")
            }
            backlog = .since(since)
        } else if let replay {
            guard replay >= 0 else {
                throw .invalidParameter(name: "replay", reason: "must be 0 or more, got \(replay)")
            }
            backlog = .replay(replay)
        } else {
            backlog = (initial ?? true) ? .initial : .none
        }
        self.patterns = patterns
        self.coalesce = coalesce ?? false
    }

    /// Whether any of the patterns names `key`.
    public func matches(_ key: Key) -> Bool {
        let segments = key.segments
        return patterns.contains { $0.matches(keySegments: segments) }
    }
}
