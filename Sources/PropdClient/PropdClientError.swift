public import PropdCore
import PropdVarlink
public import PropdWire

/// Why a call to propd failed: the daemon refused it, with one of io.propd's
/// errors and its parameters, or the connection itself failed.
///
/// `description` says it in plain words, as `propctl` prints it:
/// `no such key room.temp`, `revision mismatch on room.temp: expected 4, found 7`.
///
/// ```swift
/// do {
///     try await client.set(["room.temp": 21], expect: ["room.temp": 4])
/// } catch .refused(.revisionMismatch(let key, _, let actual)) {
///     print("\(key) is at \(actual) now")
/// }
/// ```
public enum PropdClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The daemon refused the call with one of io.propd's errors.
    case refused(IOPropdError)
    /// The daemon refused the call for lack of permission without naming a key:
    /// `org.varlink.service.PermissionDenied` (as for `Reload`), or an
    /// `io.propd.PermissionDenied` without `key`.
    case permissionDenied
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
        case .refused(let refusal): return refusal.qualifiedName
        case .permissionDenied: return IOPropdError.Name.permissionDenied.qualifiedName
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
        case .refused(let refusal): return refusal.description
        case .permissionDenied: return "permission denied"
        case .other("org.varlink.service.InvalidParameter", let parameters):
            guard case .string(let parameter)? = parameters["parameter"] else { return "invalid parameter" }
            if case .string(let reason)? = parameters["reason"] { return "invalid \(parameter): \(reason)" }
            return "invalid parameter \(parameter)"
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
            self = .permissionDenied
        } else if let refusal = IOPropdError(qualifiedName: error.name, parameters: parameters) {
            self = .refused(refusal)
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
