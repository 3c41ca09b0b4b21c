import PropdVarlink
import Synchronization

/// The server, once it exists: the io.propd interface must be built before
/// the server that serves it, yet `Stats` reports the server's connections.
final class ServerReference: Sendable {
    private let server = Mutex<VarlinkServer?>(nil)

    func set(_ value: VarlinkServer) { server.withLock { $0 = value } }

    var connectionCount: Int { server.withLock { $0?.connectionCount ?? 0 } }
}
