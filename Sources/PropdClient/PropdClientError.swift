public import PropdCore
import PropdVarlink
public import PropdWire

/// Why a call to propd failed: the daemon's contract errors, each with its
/// parameters, and the ways the connection itself can fail.
///
/// `description` says it in plain words, as `propctl` prints it:
/// `no such key room.temp`, `revision mismatch on room.temp: expected 4, found 7`.
public enum PropdClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchKey(String)
    case invalidKey(key: String, reason: String)
    case invalidPattern(pattern: String, reason: String)
    case revisionMismatch(key: String, expected: Revision, actual: Revision)
    case keyIsDerived(String)
    case bindingInvalid(message: String, line: Int, column: Int)
    case bindingCycle([String])
    case revisionCompacted(since: Revision, oldest: Revision)
    case slowConsumer(revision: Revision)
    case permissionDenied(key: String?)
    case limitExceeded(limit: String, maximum: Int)
    /// The daemon could not write its database (disk full, I/O error); nothing was stored.
    case storageFailure(message: String)
    /// A cluster node cannot reach an etcd quorum (`io.propd.Unavailable`).
    case unavailable(message: String)
    /// Commands (CONTRACT 6.2): `CMD.enabled` exists and is not `true`.
    case commandDisabled(command: String)
    /// An execution of the command is already running.
    case commandBusy(command: String)
    /// Nobody serves the command, or its handler left during the execution.
    case noHandler(command: String)
    /// The handler answered with an error.
    case commandFailed(command: String, message: String)
    /// No answer within the execution's timeout.
    case commandTimeout(command: String)
    /// `Complete` for an invocation that is unknown or already answered.
    case noSuchInvocation(id: String)
    /// Any other error reply (e.g. `org.varlink.service.InvalidParameter`).
    case other(name: String, parameters: [String: JSONValue])
    /// Nothing listens at `path`: the daemon is not running, or another socket is meant.
    case cannotConnect(path: String, reason: String)
    /// The connection closed before the answer came.
    case connectionClosed(path: String, reason: String)
    /// The daemon sent something this client does not understand.
    case malformedReply(String)

    /// The contract's error name (`io.propd.NoSuchKey`), or a name for a connection failure.
    public var name: String {
        switch self {
        case .other(let name, _): return name
        case .cannotConnect: return "CannotConnect"
        case .connectionClosed: return "ConnectionClosed"
        case .malformedReply: return "MalformedReply"
        case .permissionDenied(nil): return IOPropdError.Name.permissionDenied.qualifiedName
        default:
            // Every other case is one of io.propd's errors.
            return refusal?.qualifiedName ?? "Unknown"
        }
    }

    /// The io.propd error this is, with its parameters; nil for a
    /// connection failure and for an error io.propd does not declare.
    public var refusal: IOPropdError? {
        switch self {
        case .noSuchKey(let key): return .noSuchKey(key: key)
        case .invalidKey(let key, let reason): return .invalidKey(key: key, reason: reason)
        case .invalidPattern(let pattern, let reason): return .invalidPattern(pattern: pattern, reason: reason)
        case .revisionMismatch(let key, let expected, let actual):
            return .revisionMismatch(key: key, expected: expected, actual: actual)
        case .keyIsDerived(let key): return .keyIsDerived(key: key)
        case .bindingInvalid(let message, let line, let column):
            return .bindingInvalid(message: message, line: line, column: column)
        case .bindingCycle(let cycle): return .bindingCycle(cycle: cycle)
        case .revisionCompacted(let since, let oldest): return .revisionCompacted(since: since, oldest: oldest)
        case .slowConsumer(let revision): return .slowConsumer(revision: revision)
        case .permissionDenied(let key): return key.map { .permissionDenied(key: $0) }
        case .limitExceeded(let limit, let maximum): return .limitExceeded(limit: limit, maximum: maximum)
        case .storageFailure(let message): return .storageFailure(message: message)
        case .unavailable(let message): return .unavailable(message: message)
        case .commandDisabled(let command): return .commandDisabled(command: command)
        case .commandBusy(let command): return .commandBusy(command: command)
        case .noHandler(let command): return .noHandler(command: command)
        case .commandFailed(let command, let message): return .commandFailed(command: command, message: message)
        case .commandTimeout(let command): return .commandTimeout(command: command)
        case .noSuchInvocation(let id): return .noSuchInvocation(id: id)
        case .other, .cannotConnect, .connectionClosed, .malformedReply: return nil
        }
    }

    /// The client's error for an io.propd error.
    public init(_ refusal: IOPropdError) {
        switch refusal {
        case .noSuchKey(let key): self = .noSuchKey(key)
        case .invalidKey(let key, let reason): self = .invalidKey(key: key, reason: reason)
        case .invalidPattern(let pattern, let reason): self = .invalidPattern(pattern: pattern, reason: reason)
        case .revisionMismatch(let key, let expected, let actual):
            self = .revisionMismatch(key: key, expected: expected, actual: actual)
        case .keyIsDerived(let key): self = .keyIsDerived(key)
        case .bindingInvalid(let message, let line, let column):
            self = .bindingInvalid(message: message, line: line, column: column)
        case .bindingCycle(let cycle): self = .bindingCycle(cycle)
        case .revisionCompacted(let since, let oldest): self = .revisionCompacted(since: since, oldest: oldest)
        case .slowConsumer(let revision): self = .slowConsumer(revision: revision)
        case .permissionDenied(let key): self = .permissionDenied(key: key)
        case .limitExceeded(let limit, let maximum): self = .limitExceeded(limit: limit, maximum: maximum)
        case .storageFailure(let message): self = .storageFailure(message: message)
        case .unavailable(let message): self = .unavailable(message: message)
        case .commandDisabled(let command): self = .commandDisabled(command: command)
        case .commandBusy(let command): self = .commandBusy(command: command)
        case .noHandler(let command): self = .noHandler(command: command)
        case .commandFailed(let command, let message): self = .commandFailed(command: command, message: message)
        case .commandTimeout(let command): self = .commandTimeout(command: command)
        case .noSuchInvocation(let id): self = .noSuchInvocation(id: id)
        }
    }

    /// Whether the daemon could not be reached at all (propctl's exit code 3).
    public var isUnreachable: Bool {
        switch self {
        case .cannotConnect, .connectionClosed: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .noSuchKey(let key): return "no such key \(key)"
        case .invalidKey(let key, let reason): return "invalid key \(String(reflecting: key)): \(reason)"
        case .invalidPattern(let pattern, let reason): return "invalid pattern \(String(reflecting: pattern)): \(reason)"
        case .revisionMismatch(let key, let expected, let actual):
            return "revision mismatch on \(key): expected \(expected), found \(actual)"
        case .keyIsDerived(let key): return "\(key) is derived by a binding and cannot be written (unbind it first)"
        case .bindingInvalid(let message, let line, let column):
            return message.contains("\(line):\(column)") ? "invalid binding: \(message)"
                : "invalid binding at \(line):\(column): \(message)"
        case .bindingCycle(let keys):
            return "binding would create a cycle: " + (keys + keys.prefix(1)).joined(separator: " -> ")
        case .revisionCompacted(let since, let oldest):
            return "history after revision \(since) is no longer kept; the oldest revision available is \(oldest)"
        case .slowConsumer(let revision):
            return "the subscription fell too far behind and was ended after revision \(revision)"
        case .permissionDenied(let key): return key.map { "permission denied on \($0)" } ?? "permission denied"
        case .limitExceeded(let limit, let maximum): return "limit \(limit) exceeded (maximum \(maximum))"
        case .storageFailure(let message): return "the daemon could not store the change: \(message)"
        case .unavailable(let message): return "the cluster is unavailable: \(message)"
        case .other("org.varlink.service.InvalidParameter", let parameters):
            guard case .string(let parameter)? = parameters["parameter"] else { return "invalid parameter" }
            if case .string(let reason)? = parameters["reason"] { return "invalid \(parameter): \(reason)" }
            return "invalid parameter \(parameter)"
        case .commandDisabled(let command): return "command \(command) is disabled (\(command).enabled is not true)"
        case .commandBusy(let command): return "command \(command) is already executing"
        case .noHandler(let command): return "no handler serves command \(command)"
        case .commandFailed(let command, let message): return "command \(command) failed: \(message)"
        case .commandTimeout(let command): return "command \(command) got no answer in time"
        case .noSuchInvocation(let id): return "no open invocation \(id) (unknown, or already answered)"
        case .other(let name, let parameters):
            return parameters.isEmpty ? name : "\(name) \(JSONValue.object(parameters).jsonString)"
        case .cannotConnect(let path, let reason): return "cannot connect to propd at \(path): \(reason)"
        case .connectionClosed(let path, let reason): return "connection to propd at \(path) closed: \(reason)"
        case .malformedReply(let what): return "unexpected reply from propd: \(what)"
        }
    }

    /// The typed error for a Varlink error reply.
    init(_ error: VarlinkCallError) {
        let parameters = error.parameters
        if error.name == "org.varlink.service.PermissionDenied"
            || (error.name == IOPropdError.Name.permissionDenied.qualifiedName && parameters["key"] == nil)
        {
            self = .permissionDenied(key: nil)
        } else if let refusal = IOPropdError(qualifiedName: error.name, parameters: parameters) {
            self.init(refusal)
        } else {
            self = .other(name: error.name, parameters: parameters)
        }
    }

    /// The typed error for anything a Varlink call threw.
    static func from(_ error: any Error, path: String) -> PropdClientError {
        switch error {
        case let error as PropdClientError: return error
        case let error as VarlinkCallError: return PropdClientError(error)
        case let error as VarlinkConnectionError:
            switch error.code {
            case .cannotConnect: return .cannotConnect(path: error.path, reason: error.reason)
            case .connectionClosed: return .connectionClosed(path: error.path, reason: error.reason)
            case .malformedReply: return .malformedReply(error.reason)
            }
        default: return .connectionClosed(path: path, reason: "\(error)")
        }
    }
}
