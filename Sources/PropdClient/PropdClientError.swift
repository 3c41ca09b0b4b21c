public import PropdCore
import PropdVarlink

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
        case .noSuchKey: return "io.propd.NoSuchKey"
        case .invalidKey: return "io.propd.InvalidKey"
        case .invalidPattern: return "io.propd.InvalidPattern"
        case .revisionMismatch: return "io.propd.RevisionMismatch"
        case .keyIsDerived: return "io.propd.KeyIsDerived"
        case .bindingInvalid: return "io.propd.BindingInvalid"
        case .bindingCycle: return "io.propd.BindingCycle"
        case .revisionCompacted: return "io.propd.RevisionCompacted"
        case .slowConsumer: return "io.propd.SlowConsumer"
        case .permissionDenied: return "io.propd.PermissionDenied"
        case .limitExceeded: return "io.propd.LimitExceeded"
        case .storageFailure: return "io.propd.StorageFailure"
        case .commandDisabled: return "io.propd.CommandDisabled"
        case .commandBusy: return "io.propd.CommandBusy"
        case .noHandler: return "io.propd.NoHandler"
        case .commandFailed: return "io.propd.CommandFailed"
        case .commandTimeout: return "io.propd.CommandTimeout"
        case .noSuchInvocation: return "io.propd.NoSuchInvocation"
        case .other(let name, _): return name
        case .cannotConnect: return "CannotConnect"
        case .connectionClosed: return "ConnectionClosed"
        case .malformedReply: return "MalformedReply"
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
        let p = error.parameters
        func string(_ name: String) -> String { if case .string(let s)? = p[name] { s } else { "" } }
        func int(_ name: String) -> Int64 { if case .integer(let i)? = p[name] { i } else { 0 } }
        switch error.name {
        case "io.propd.NoSuchKey": self = .noSuchKey(string("key"))
        case "io.propd.InvalidKey": self = .invalidKey(key: string("key"), reason: string("reason"))
        case "io.propd.InvalidPattern": self = .invalidPattern(pattern: string("pattern"), reason: string("reason"))
        case "io.propd.RevisionMismatch":
            self = .revisionMismatch(
                key: string("key"), expected: Revision(int("expected")), actual: Revision(int("actual")))
        case "io.propd.KeyIsDerived": self = .keyIsDerived(string("key"))
        case "io.propd.BindingInvalid":
            self = .bindingInvalid(message: string("message"), line: Int(int("line")), column: Int(int("column")))
        case "io.propd.BindingCycle":
            var keys: [String] = []
            if case .array(let items)? = p["cycle"] {
                for case .string(let key) in items { keys.append(key) }
            }
            self = .bindingCycle(keys)
        case "io.propd.RevisionCompacted":
            self = .revisionCompacted(since: Revision(int("since")), oldest: Revision(int("oldest")))
        case "io.propd.SlowConsumer": self = .slowConsumer(revision: Revision(int("revision")))
        case "io.propd.PermissionDenied", "org.varlink.service.PermissionDenied":
            self = .permissionDenied(key: p["key"] == nil ? nil : string("key"))
        case "io.propd.LimitExceeded": self = .limitExceeded(limit: string("limit"), maximum: Int(int("maximum")))
        case "io.propd.StorageFailure": self = .storageFailure(message: string("message"))
        case "io.propd.CommandDisabled": self = .commandDisabled(command: string("command"))
        case "io.propd.CommandBusy": self = .commandBusy(command: string("command"))
        case "io.propd.NoHandler": self = .noHandler(command: string("command"))
        case "io.propd.CommandFailed": self = .commandFailed(command: string("command"), message: string("message"))
        case "io.propd.CommandTimeout": self = .commandTimeout(command: string("command"))
        case "io.propd.NoSuchInvocation": self = .noSuchInvocation(id: string("id"))
        default: self = .other(name: error.name, parameters: p)
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
