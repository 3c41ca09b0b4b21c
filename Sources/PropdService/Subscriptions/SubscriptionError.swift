public import PropdCore

/// Why a subscription could not start. The wire layer maps each case to the
/// contract's error of the same meaning.
public enum SubscriptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A parameter of `Subscribe` is out of range; maps to
    /// `org.varlink.service.InvalidParameter(parameter)`.
    case invalidParameter(name: String, reason: String)
    /// History no longer reaches back to `since + 1`; maps to
    /// `io.propd.RevisionCompacted(since, oldest)`. A ``BacklogSource`` throws it.
    case revisionCompacted(since: Revision, oldest: Revision)
    /// `since` is above the store's revision: the client has seen revisions
    /// this store never committed (another database, or a restored one); maps
    /// to `org.varlink.service.InvalidParameter("since")`.
    case sinceAhead(since: Revision, current: Revision)
    /// The hub is shut down and takes no new subscriptions.
    case hubClosed

    public var description: String {
        switch self {
        case .invalidParameter(let name, let reason): return "parameter '\(name)' is invalid: \(reason)"
        case .revisionCompacted(let since, let oldest):
            return "history no longer reaches back to revision \(since.rawValue + 1); the oldest kept is \(oldest)"
        case .sinceAhead(let since, let current):
            return "since \(since) is ahead of the store's revision \(current)"
        case .hubClosed: return "the subscription hub is shut down"
        }
    }
}

/// How a subscription ended, as its consumer sees it.
public enum SubscriptionEnd: Sendable, Hashable {
    /// The consumer fell behind beyond the bound without `coalesce`. `revision`
    /// is the last revision it was fully sent: resuming with `since: revision`
    /// loses nothing. Maps to `io.propd.SlowConsumer(revision)`.
    case slowConsumer(revision: Revision)
    /// The subscription was cancelled (connection closed, handle released).
    case cancelled
    /// The hub was shut down.
    case hubClosed
}

/// The error an ``SubscriptionEvents`` iteration throws when the consumer was
/// too slow; `revision` is the last revision it was fully sent.
public struct SlowConsumer: Error, Sendable, Hashable {
    public var revision: Revision
    public init(revision: Revision) { self.revision = revision }
}
