import GRPCCore

/// How the client treats an error from one attempt on one member.
///
/// etcd answers with a gRPC status whose message is one of its fixed strings
/// (`etcdserver/api/v3rpc/rpctypes/error.go`); the transport answers with
/// `unavailable` when it has no connection. The split that matters is whether
/// the request can have been applied: a request that never reached raft can
/// go to another member; a write that may have reached it cannot be replayed
/// blindly, since etcd's writes are not idempotent (each one is a revision).
enum EtcdFailure: Sendable {
    /// Not applied (no connection, or the member has no leader): try another member.
    case notApplied(any Error)
    /// Maybe applied: replay a read, report a write as `outcomeUnknown`.
    case maybeApplied(any Error)
    /// etcd's definite answer, final.
    case final(EtcdError)
    case cancelled

    init(_ error: any Error) {
        if error is CancellationError {
            self = .cancelled
            return
        }
        if let error = error as? EtcdError {
            self = .final(error)
            return
        }
        guard let rpc = error as? RPCError else {
            self = .maybeApplied(error)
            return
        }
        let message = rpc.message
        func final(_ code: EtcdError.Code) -> EtcdFailure { .final(EtcdError(code, message, cause: rpc)) }
        switch message {
        case "etcdserver: too many operations in txn request": self = final(.tooManyOperations)
        case "etcdserver: request is too large": self = final(.requestTooLarge)
        case "etcdserver: mvcc: database space exceeded": self = final(.noSpace)
        case "etcdserver: mvcc: required revision has been compacted": self = final(.compacted)
        case "etcdserver: mvcc: required revision is a future revision": self = final(.futureRevision)
        case "etcdserver: requested lease not found": self = final(.leaseNotFound)
        case "etcdserver: duplicate key given in txn request": self = final(.duplicateKey)
        case "election: not leader", "election: session expired": self = final(.notLeader)
        case "election: no leader": self = final(.rejected)
        // Checked before the request is proposed (the "hasleader" metadata
        // every request carries), so nothing was applied.
        case "etcdserver: no leader", "etcdserver: not capable": self = .notApplied(rpc)
        default:
            switch rpc.code {
            case .cancelled:
                self = .cancelled
            case .resourceExhausted where message.hasPrefix("grpc: received message larger than max"):
                // gRPC's own frame limit (max-request-bytes plus overhead).
                self = final(.requestTooLarge)
            case .unavailable where Self.neverSent(rpc):
                self = .notApplied(rpc)
            case .unavailable, .deadlineExceeded, .unknown, .internalError, .aborted:
                self = .maybeApplied(rpc)
            default:
                self = final(.rejected)
            }
        }
    }

    /// The transport could not open a stream (no connection, or none yet):
    /// the request left nothing behind. grpc-swift-nio-transport's messages
    /// for these cases; a stream that opened and then broke ("The TCP
    /// connection was dropped unexpectedly.", "Stream unexpectedly closed.")
    /// is not among them.
    private static func neverSent(_ error: RPCError) -> Bool {
        neverSentMessages.contains { error.message.hasPrefix($0) }
    }

    private static let neverSentMessages = [
        "Could not establish a connection to",
        "Channel is in a transient failure state",
        "Channel isn't ready",
        "Channel is shutting down",
        "channel is shutdown",
        "channel is closed",
        "subchannel isn't ready",
        "subchannel is unavailable",
        "Subchannel shutdown",
        "Failed to resolve server name",
        "Transport is shut",
    ]
}
