import GRPCCore
import NIOCore
import Synchronization

/// The connections to one etcd member: RPCs go over the current one, which
/// is replaced by a fresh one after ``rpcsPerConnection`` RPCs.
///
/// Why replace a healthy connection: swift-nio-http2 closes a connection
/// (GOAWAY `ENHANCE_YOUR_CALM`, failing the RPCs on it with "Stream
/// unexpectedly closed") once it receives more than 200 PING or SETTINGS
/// frames within 30 seconds (`NIOHTTP2Handler.ConnectionConfiguration.
/// controlFrameRateLimit`), and etcd's grpc-go server sends a PING after
/// nearly every request message: its flow-control (BDP) estimator pings
/// whenever it receives DATA and has no such PING outstanding, and with small
/// requests it never reaches its window limit, which would stop it. Left
/// alone, a busy connection fails its 199th RPC, whose PING is the 201st
/// control frame after the 2 SETTINGS of the handshake.
/// grpc-swift-nio-transport 2.9.2 builds the client's HTTP/2 handler with
/// NIO's default limit and does not expose it, so the connection is
/// recycled before it can get there.
///
/// A retired connection takes no new RPCs; it is shut down gracefully once
/// the RPCs that began on it (long-lived watches, keep-alives, observers
/// included) have ended.
final class EtcdMember: Sendable {
    /// RPCs started on one connection before the next RPC gets a fresh one:
    /// each may draw one PING, and half the limit leaves the streams still
    /// open on a retired connection room for their later messages (each of
    /// those may draw a PING too) within the limit's 30-second window.
    static let rpcsPerConnection = 100

    let endpoint: EtcdEndpoint
    private let reconnectAfterAtMost: Duration
    private let eventLoopGroup: any EventLoopGroup
    private let state: Mutex<State>
    /// Every connection made, for ``runConnections()`` to run.
    private let made: AsyncStream<EtcdConnection>
    private let madeContinuation: AsyncStream<EtcdConnection>.Continuation

    private struct State {
        var current: EtcdConnection
        var rpcsOnCurrent = 0
        /// RPCs under way per connection generation.
        var inFlight: [Int: Int] = [:]
        /// Replaced connections whose RPCs have not all ended.
        var retired: [Int: EtcdConnection] = [:]
        var isShutDown = false
    }

    /// The member's JSON gateway, for transactions.
    let gateway: EtcdGateway
    /// gRPC calls on the client's transaction loop: the transactions of
    /// ``EtcdClient/txnFuture(_:success:failure:)`` and the watches.
    let loopConnection: LoopGRPCConnection

    init(
        _ endpoint: EtcdEndpoint, reconnectAfterAtMost: Duration, requestTimeout: Duration,
        eventLoopGroup: any EventLoopGroup, transactionLoop: any EventLoop
    ) throws {
        self.endpoint = endpoint
        gateway = EtcdGateway(endpoint, requestTimeout: requestTimeout, loop: transactionLoop)
        loopConnection = LoopGRPCConnection(endpoint, requestTimeout: requestTimeout, loop: transactionLoop)
        self.reconnectAfterAtMost = reconnectAfterAtMost
        self.eventLoopGroup = eventLoopGroup
        let first = try EtcdConnection(
            endpoint, generation: 0, reconnectAfterAtMost: reconnectAfterAtMost, eventLoopGroup: eventLoopGroup)
        state = Mutex(State(current: first))
        (made, madeContinuation) = AsyncStream.makeStream()
        madeContinuation.yield(first)
    }

    /// Runs `body` with the member's current connection, which stays open
    /// at least until `body` returns.
    func withConnection<Result>(_ body: (EtcdConnection) async throws -> Result) async throws -> Result {
        let connection = checkOut()
        defer { checkIn(connection) }
        return try await body(connection)
    }

    /// Runs every connection of the member; returns once ``shutdown()`` was
    /// called and the RPCs in flight have ended, or when cancelled.
    func runConnections() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for await connection in made {
                group.addTask { try await connection.grpc.runConnections() }
            }
        }
    }

    /// Lets RPCs in flight finish, refuses new ones, and ends ``runConnections()``.
    func shutdown() {
        let connections = state.withLock { state in
            state.isShutDown = true
            return [state.current] + state.retired.values
        }
        madeContinuation.finish()
        for connection in connections { connection.grpc.beginGracefulShutdown() }
        gateway.shutdown()
        loopConnection.shutdown()
    }

    private func checkOut() -> EtcdConnection {
        let (connection, finished) = state.withLock { state -> (EtcdConnection, EtcdConnection?) in
            var finished: EtcdConnection?
            if state.rpcsOnCurrent >= Self.rpcsPerConnection, !state.isShutDown,
                // Cannot fail: the same endpoint made the first connection.
                let next = try? EtcdConnection(
                    endpoint, generation: state.current.generation + 1, reconnectAfterAtMost: reconnectAfterAtMost,
                    eventLoopGroup: eventLoopGroup)
            {
                let old = state.current
                if state.inFlight[old.generation, default: 0] == 0 {
                    finished = old
                } else {
                    state.retired[old.generation] = old
                }
                state.current = next
                state.rpcsOnCurrent = 0
                madeContinuation.yield(next)
            }
            state.rpcsOnCurrent += 1
            state.inFlight[state.current.generation, default: 0] += 1
            return (state.current, finished)
        }
        finished?.grpc.beginGracefulShutdown()
        return connection
    }

    private func checkIn(_ connection: EtcdConnection) {
        let finished = state.withLock { state -> EtcdConnection? in
            let generation = connection.generation
            let left = state.inFlight[generation, default: 1] - 1
            state.inFlight[generation] = left == 0 ? nil : left
            guard left == 0, let retired = state.retired.removeValue(forKey: generation) else { return nil }
            return retired
        }
        finished?.grpc.beginGracefulShutdown()
    }

    /// Every request asks the member to refuse it when it has no leader
    /// (etcd's `hasleader` metadata): a member cut off from the quorum then
    /// answers at once instead of holding the request until it times out,
    /// and a watch on it is cancelled so the client moves to another member.
    static let requireLeader: Metadata = {
        var metadata = Metadata()
        metadata.addString(requireLeaderEntry.value, forKey: requireLeaderEntry.name)
        return metadata
    }()

    /// ``requireLeader``'s one entry, for the routes that write it as a header.
    static let requireLeaderEntry = (name: "hasleader", value: "true")
}
