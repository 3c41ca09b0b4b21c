public import PropdCore
public import PropdStore

/// Why a service call failed, in the contract's terms: each case maps to one
/// `io.propd` error and carries its parameters.
public enum ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `NoSuchKey(key)`.
    case noSuchKey(String)
    /// `RevisionMismatch(key, expected, actual)`.
    case revisionMismatch(key: String, expected: Revision, actual: Revision)
    /// `KeyIsDerived(key)`: clients cannot Set or Delete a derived property.
    case keyIsDerived(String)
    /// `BindingInvalid(message, line, column)`.
    case bindingInvalid(message: String, line: Int, column: Int)
    /// `BindingCycle(cycle)`.
    case bindingCycle([String])
    /// `RevisionCompacted(since, oldest)`.
    case revisionCompacted(since: Revision, oldest: Revision)
    /// `Get(revision)` of a revision the store has not reached yet; maps to
    /// `org.varlink.service.InvalidParameter("revision")`.
    case revisionAhead(revision: Revision, current: Revision)
    /// `PermissionDenied(key)`: e.g. a binding naming a source its declarer may not read.
    case permissionDenied(String)
    /// The store failed (disk full, I/O error, closed): nothing was written.
    case storage(StoreError)
    /// `LimitExceeded(limit, maximum)`: the call would cost more than a limit
    /// allows, e.g. recompute more derived keys than one revision may.
    case limitExceeded(limit: String, maximum: Int)
    /// `Unavailable`: a cluster node cannot reach an etcd quorum.
    case unavailable(message: String)

    /// The config name of the bound on derived recomputations per revision.
    public static let recomputationLimit = "max-derived-per-revision"

    public var description: String {
        switch self {
        case .noSuchKey(let key): return "no such key \(key)"
        case .revisionMismatch(let key, let expected, let actual):
            return "revision mismatch on \(key): expected \(expected), found \(actual)"
        case .keyIsDerived(let key): return "\(key) is derived by a binding; unbind it first to write it"
        case .bindingInvalid(let message, _, _): return message
        case .bindingCycle(let keys):
            return "binding would close a cycle: " + (keys + keys.prefix(1)).joined(separator: " -> ")
        case .revisionCompacted(let since, let oldest):
            return "history after revision \(since) was compacted; the oldest complete revision is \(oldest)"
        case .revisionAhead(let revision, let current):
            return "revision \(revision) is beyond the store's newest revision \(current)"
        case .permissionDenied(let key): return "permission denied on \(key)"
        case .storage(let error): return error.description
        case .limitExceeded(let limit, let maximum): return "limit \(limit) (\(maximum)) exceeded"
        case .unavailable(let message): return message
        }
    }

    /// The service's view of a store failure: the domain errors become their
    /// contract cases, the rest stay storage failures.
    init(_ error: StoreError) {
        switch error {
        case .noSuchKey(let key): self = .noSuchKey(key.rawValue)
        case .revisionMismatch(let key, let expected, let actual):
            self = .revisionMismatch(key: key.rawValue, expected: expected, actual: actual)
        case .compacted(let since, let oldest): self = .revisionCompacted(since: since, oldest: oldest)
        case .limitExceeded(let limit, let maximum): self = .limitExceeded(limit: limit, maximum: maximum)
        case .unavailable, .outcomeUnknown: self = .unavailable(message: error.description)
        default: self = .storage(error)
        }
    }

    /// Any error a write body or the store threw, as a service error.
    static func from(_ error: any Error) -> ServiceError {
        switch error {
        case let error as ServiceError: return error
        case let error as StoreError: return ServiceError(error)
        default: return .storage(.storage(code: -1, message: "\(error)"))
        }
    }
}
