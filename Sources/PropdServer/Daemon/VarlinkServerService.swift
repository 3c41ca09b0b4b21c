import PropdVarlink
import ServiceLifecycle

/// The Varlink server as a lifecycle service: on graceful shutdown it stops
/// accepting, lets in-flight calls finish, then closes.
struct VarlinkServerService: Service {
    let server: VarlinkServer
    /// Runs first when shutdown begins (ends the subscriptions so their
    /// streaming calls can finish).
    let onShutdown: @Sendable () -> Void

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.run()
        } onGracefulShutdown: {
            onShutdown()
            server.beginGracefulShutdown()
        }
    }
}
