/// Why a ``VarlinkServer`` could not serve.
public struct VarlinkServerError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// Binding or adopting the listening socket failed.
        case cannotListen
        /// `run()` was called a second time.
        case alreadyRunning
    }

    public var code: Code
    public var address: VarlinkBindAddress
    /// What the system said.
    public var reason: String

    public init(code: Code, address: VarlinkBindAddress, reason: String) {
        self.code = code
        self.address = address
        self.reason = reason
    }

    public var description: String {
        switch code {
        case .cannotListen: return "cannot listen on \(address): \(reason)"
        case .alreadyRunning: return "the server on \(address) is already running"
        }
    }
}
