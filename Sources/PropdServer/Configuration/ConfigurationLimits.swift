public import PropdBindings
import PropdStore

/// Bounds that keep one client from taking the daemon's memory or descriptors.
///
/// A request beyond a limit is answered with `io.propd.LimitExceeded(limit,
/// maximum)`, where `limit` is the limit's config name (``Limit/rawValue``,
/// e.g. `max-patterns-per-subscription`).
public struct ConfigurationLimits: Sendable, Hashable {
    /// One limit, named as in the config file's `limits:` section.
    public enum Limit: String, Sendable, Hashable, CaseIterable {
        case maxMessageBytes = "max-message-bytes"
        case maxConnections = "max-connections"
        case maxConnectionsPerUID = "max-connections-per-uid"
        case maxPatternsPerSubscription = "max-patterns-per-subscription"
        case maxEvaluationSteps = "max-evaluation-steps"
        case maxDerivedPerRevision = "max-derived-per-revision"
        case maxPartialMessageBytes = "max-partial-message-bytes"
        case maxMessageSeconds = "max-message-seconds"

        /// The values a config file may give.
        public var allowedRange: ClosedRange<Int> {
            switch self {
            // A message must hold at least a small call; beyond 1 GiB one
            // client could take the daemon's memory.
            case .maxMessageBytes: return 4096...(1 << 30)
            case .maxConnections, .maxConnectionsPerUID, .maxPatternsPerSubscription:
                return 1...1_000_000
            case .maxEvaluationSteps: return 1000...(1 << 40)
            // A write's own keys and the keys it derives are one revision's
            // changes, which the store bounds: room for a call's most keys.
            case .maxDerivedPerRevision:
                return 1...(PropertyStore.maximumChangesPerRevision - InterfaceLimits().keysPerCall)
            case .maxPartialMessageBytes: return 4096...(1 << 34)
            case .maxMessageSeconds: return 1...86_400
            }
        }
    }

    /// The largest Varlink message accepted, in bytes, NUL included
    /// (default 8 MiB). A larger one ends the connection, since the stream can
    /// no longer be framed.
    public var maxMessageBytes: Int
    /// Open client connections at once (default 1024). Further connections are
    /// closed at once, so the listener never stalls.
    public var maxConnections: Int
    /// Patterns in one Subscribe call (default 256).
    public var maxPatternsPerSubscription: Int
    /// The work one closure call of a binding may do (default 2^26 steps);
    /// beyond it the derived key is in the error state `evaluation too long`.
    public var maxEvaluationSteps = BindingLimits.defaults.maxEvaluationSteps
    /// Derived keys one revision may recompute (default 100,000); a write
    /// that would recompute more is refused with `LimitExceeded`.
    public var maxDerivedPerRevision = BindingLimits.defaults.maxRecomputationsPerRevision

    /// Bytes of incomplete messages all connections together may hold
    /// (default 64 MiB): a connection whose message would pass it is closed
    /// with `LimitExceeded`.
    public var maxPartialMessageBytes = 64 * 1024 * 1024
    /// Seconds within which a message must be complete once its first byte
    /// arrived (default 60): a slower sender (slowloris) is closed.
    public var maxMessageSeconds = 60

    /// Open connections of one user other than root and the daemon's own
    /// (default 256): one user cannot take every connection.
    public var maxConnectionsPerUID = 256

    /// What derived values may cost: a derived value is no larger than a
    /// client's largest message.
    public var bindingLimits: BindingLimits {
        BindingLimits(
            maxValueBytes: maxMessageBytes, maxEvaluationSteps: maxEvaluationSteps,
            maxRecomputationsPerRevision: maxDerivedPerRevision)
    }

    /// 8 MiB messages, 1024 connections, 256 patterns per subscription.
    public static let defaults = ConfigurationLimits(
        maxMessageBytes: 8 * 1024 * 1024,
        maxConnections: 1024,
        maxPatternsPerSubscription: 256
    )

    public init(maxMessageBytes: Int, maxConnections: Int, maxPatternsPerSubscription: Int) {
        self.maxMessageBytes = maxMessageBytes
        self.maxConnections = maxConnections
        self.maxPatternsPerSubscription = maxPatternsPerSubscription
    }

    /// Names a config file's `limits:` may still give that have no effect,
    /// with why: accepted so that a file written for an earlier propd keeps
    /// working, and logged as a warning.
    public static let retired: [String: String] = [
        "max-subscriptions-per-connection":
            "a connection carries one Subscribe stream at a time (Varlink answers a connection's calls in order, "
            + "so a second Subscribe waits until the first stream ends); open a connection per stream"
    ]

    /// One limit by name, for tables and `LimitExceeded` replies.
    public subscript(limit: Limit) -> Int {
        get {
            switch limit {
            case .maxMessageBytes: return maxMessageBytes
            case .maxConnections: return maxConnections
            case .maxConnectionsPerUID: return maxConnectionsPerUID
            case .maxPatternsPerSubscription: return maxPatternsPerSubscription
            case .maxEvaluationSteps: return maxEvaluationSteps
            case .maxDerivedPerRevision: return maxDerivedPerRevision
            case .maxPartialMessageBytes: return maxPartialMessageBytes
            case .maxMessageSeconds: return maxMessageSeconds
            }
        }
        set {
            switch limit {
            case .maxMessageBytes: maxMessageBytes = newValue
            case .maxConnections: maxConnections = newValue
            case .maxConnectionsPerUID: maxConnectionsPerUID = newValue
            case .maxPatternsPerSubscription: maxPatternsPerSubscription = newValue
            case .maxEvaluationSteps: maxEvaluationSteps = newValue
            case .maxDerivedPerRevision: maxDerivedPerRevision = newValue
            case .maxPartialMessageBytes: maxPartialMessageBytes = newValue
            case .maxMessageSeconds: maxMessageSeconds = newValue
            }
        }
    }
}
