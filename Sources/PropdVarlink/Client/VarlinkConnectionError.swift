/// Why a ``VarlinkConnection`` could not carry a call.
public struct VarlinkConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// Nothing accepted a connection at ``VarlinkConnectionError/path``.
        case cannotConnect
        /// The connection was closed (by either side) before the reply came.
        case connectionClosed
        /// The service sent something that is not a Varlink reply; the
        /// connection was closed.
        case malformedReply
    }

    public var code: Code
    /// The socket path of the connection.
    public var path: String
    /// What went wrong underneath, for people.
    public var reason: String

    public init(code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch code {
        case .cannotConnect: return "cannot connect to \(path): \(reason)"
        case .connectionClosed: return "connection to \(path) closed: \(reason)"
        case .malformedReply: return "malformed reply from \(path): \(reason)"
        }
    }
}
