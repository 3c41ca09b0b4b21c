import GRPCCore
import Synchronization

/// When a long-lived stream (a watch, a lease's keep-alive) last heard from
/// its member: a member whose host hangs, or whose packets are dropped,
/// keeps the connection open and answers nothing, and only the stream's
/// own requests going unanswered tell it from a quiet one. (A campaign has
/// nothing to ask on its call, which etcd answers only once it leads: it
/// probes its member with a status request beside it instead.)
///
/// (HTTP/2 keep-alive pings cannot: grpc-swift-nio-transport stops pinging
/// a connection for good once it was idle when a ping was due, and pinging
/// idle connections makes etcd close them as "too many pings".)
final class StreamSilence: Sendable {
    /// Thrown by a stream's request side to end it after too long a silence.
    struct Exceeded: Error {}

    private let last = Mutex(ContinuousClock.now)

    /// The member answered now.
    func heard() { last.withLock { $0 = .now } }

    /// How long since the member last answered (or the stream began).
    var silence: Duration { ContinuousClock.now - last.withLock { $0 } }

    /// What ended the stream: `error`, or, when nothing was heard for longer
    /// than `limit`, the member's silence, which moves the stream to
    /// another member (etcd's own word is kept).
    func cause(of error: any Error, limit: Duration, on endpoint: EtcdEndpoint) -> any Error {
        guard silence > limit, !(error is EtcdError) else { return error }
        return RPCError(code: .unavailable, message: "\(endpoint) answered nothing for \(limit)")
    }
}
