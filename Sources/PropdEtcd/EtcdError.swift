/// What went wrong talking to etcd, named after the cause.
///
/// ```swift
/// do {
///     _ = try await etcd.txn(compares, success: writes)
/// } catch let error as EtcdError where error.code == .tooManyOperations {
///     // split the write, or refuse it as too large
/// }
/// ```
///
/// The limits an etcd operator sets (`--max-txn-ops`, `--max-request-bytes`,
/// `--quota-backend-bytes`) each have their own code, so a caller can name
/// the limit to its user. `cause` keeps the gRPC error etcd answered with.
public struct EtcdError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// No member could serve the request within the client's bound
        /// (members down, or no quorum so no leader). Nothing was applied.
        case unavailable
        /// A write reached a member but its outcome is unknown (the member
        /// died, the leader changed, or the request timed out): it may or may
        /// not have been applied. Read before retrying.
        case outcomeUnknown
        /// The revision asked for has been compacted; see `compactRevision`.
        case compacted
        /// The revision asked for is newer than the store's.
        case futureRevision
        /// A transaction has more operations than `--max-txn-ops` (128 by default).
        case tooManyOperations
        /// A request is larger than `--max-request-bytes` (1.5 MiB by default).
        case requestTooLarge
        /// The backend is over `--quota-backend-bytes`: etcd raised its NOSPACE
        /// alarm and refuses writes until an operator compacts, defragments
        /// and disarms it.
        case noSpace
        /// The lease does not exist (expired or revoked).
        case leaseNotFound
        /// The election key no longer leads (its lease ended or it resigned).
        case notLeader
        /// A transaction names the same key in two write operations.
        case duplicateKey
        /// A client URL could not be parsed.
        case invalidEndpoint
        /// etcd refused the request for another reason; `message` says which.
        case rejected
    }

    public var code: Code
    public var message: String
    /// For `.compacted`: the oldest revision etcd still has.
    public var compactRevision: Int64?
    /// The error etcd or the transport answered with.
    public var cause: (any Error)?

    public init(_ code: Code, _ message: String, compactRevision: Int64? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.compactRevision = compactRevision
        self.cause = cause
    }

    public var description: String {
        guard let cause else { return "etcd \(code): \(message)" }
        return "etcd \(code): \(message) (\(cause))"
    }
}
