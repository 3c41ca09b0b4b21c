import Foundation
import GRPCCore
import NIOCore
import NIOHPACK
import NIOPosix
import SwiftProtobuf

/// One HTTP/2 connection to a member's gRPC API on one event loop, for
/// calls whose replies are handled on that loop: the route of
/// ``EtcdClient/txnFuture(_:success:failure:)`` and of the watches
/// (``LoopStreamCall``).
///
/// grpc-swift's client runs every call through Swift tasks, so a caller on
/// an event loop pays thread hand-overs there and back; this speaks gRPC's
/// framing (a length-prefixed protobuf message each way, the status in the
/// trailers) directly on the connection's streams, on the loop, through a
/// ``GRPCCallMultiplexer``, which answers etcd's one PING per request
/// without the control-frame limit of swift-nio-http2's handler
/// (BENCHMARKS.md, "Why PropdEtcd replaces a connection every 100 RPCs").
///
/// Failures are reported as the ``RPCError`` grpc-swift would give, so
/// ``EtcdFailure`` classifies both alike: no connection is `unavailable`
/// and never sent; a stream or connection lost, or a call timed out, with
/// the request on it may have applied it.
final class LoopGRPCConnection: Sendable {
    let endpoint: EtcdEndpoint
    let loop: any EventLoop
    private let requestTimeout: TimeAmount
    private let authority: String
    private let state: NIOLoopBoundBox<State>

    /// Where the connection is: none yet (or closed), being made, or taking calls.
    private enum State {
        case idle
        case connecting(EventLoopFuture<Void>)
        case connected(GRPCCallMultiplexer)
    }

    init(_ endpoint: EtcdEndpoint, requestTimeout: Duration, loop: any EventLoop) {
        self.endpoint = endpoint
        self.loop = loop
        let (seconds, attoseconds) = requestTimeout.components
        self.requestTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        authority = "\(endpoint.host):\(endpoint.port)"
        state = .makeBoxSendingValue(.idle, eventLoop: loop)
    }

    /// Calls `method` (`/package.Service/Method`) with `request`; completes on ``loop``.
    func call<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>(
        _ method: String, _ request: Request, metadata: [(String, String)], as: Response.Type
    ) -> EventLoopFuture<Response> {
        let message: [UInt8]
        do {
            message = try request.serializedBytes()
        } catch {
            return loop.makeFailedFuture(error)
        }
        return call(method, message: message, metadata: metadata).flatMapThrowing {
            try Response(serializedBytes: Array($0.readableBytesView))
        }
    }

    /// Calls `method` with `message`, a request already serialized; the
    /// reply's one message, undecoded. Completes on ``loop``.
    func call(_ method: String, message: [UInt8], metadata: [(String, String)]) -> EventLoopFuture<ByteBuffer> {
        let headers = requestHeaders(method, metadata: metadata)
        return loop.inEventLoop ? send(headers, message) : loop.flatSubmit { self.send(headers, message) }
    }

    /// Opens a stream call of `method` with its first request: each reply
    /// message goes to `onMessage` on ``loop`` as it arrives.
    func stream<Request: SwiftProtobuf.Message>(
        _ method: String, _ request: Request, metadata: [(String, String)],
        onMessage: @escaping @Sendable (ByteBuffer) throws -> Void
    ) -> LoopStreamCall {
        let call = LoopStreamCall(loop: loop)
        let message: [UInt8]
        do {
            message = try request.serializedBytes()
        } catch {
            call.cancel(with: error)
            return call
        }
        let headers = requestHeaders(method, metadata: metadata)
        loop.execute {
            self.readyCalls().whenComplete { call.open(on: $0, headers: headers, message: message, onMessage: onMessage) }
        }
        return call
    }

    /// Closes the connection; calls on it fail as the connection lost.
    func shutdown() {
        loop.execute {
            // A connect under way finds itself superseded and closes its connection.
            if case .connected(let calls) = self.state.value { calls.close() }
            self.state.value = .idle
        }
    }

    // MARK: Connection

    /// Starts the call on the connection (on ``loop``).
    private func send(_ headers: HPACKHeaders, _ message: [UInt8]) -> EventLoopFuture<ByteBuffer> {
        if case .connected(let calls) = state.value, calls.acceptsCalls {
            return calls.start(headers: headers, message: message)
        }
        return readyCalls().flatMap { $0.value.start(headers: headers, message: message) }
    }

    /// The connection's calls once it takes them, connecting first if there
    /// is none (on ``loop``); a connection made for a call that closes
    /// before the call starts fails it as never sent.
    private func readyCalls(connecting allowed: Bool = true) -> EventLoopFuture<NIOLoopBound<GRPCCallMultiplexer>> {
        switch state.value {
        case .connected(let calls) where calls.acceptsCalls:
            return loop.makeSucceededFuture(NIOLoopBound(calls, eventLoop: loop))
        case .connecting(let connecting) where allowed:
            return connecting.flatMap { self.readyCalls(connecting: false) }
        case .idle where allowed, .connected where allowed:
            return connect().flatMap { self.readyCalls(connecting: false) }
        case .idle, .connected, .connecting:
            return loop.makeFailedFuture(GRPCCallMultiplexer.neverSent)
        }
    }

    /// Connects, the state ``State/connecting`` until the connection takes calls or failed.
    private func connect() -> EventLoopFuture<Void> {
        let (endpoint, state, timeout) = (endpoint, state, requestTimeout)
        let ready = loop.makePromise(of: Void.self)
        state.value = .connecting(ready.futureResult)
        @Sendable func isCurrent() -> Bool {
            if case .connecting(let current) = state.value { return current === ready.futureResult }
            return false
        }
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(2))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(GRPCCallMultiplexer(timeout: timeout, on: channel.eventLoop))
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .flatMapErrorThrowing { error -> any Channel in
                throw RPCError(code: .unavailable, message: "Could not establish a connection to \(endpoint): \(error)")
            }
            .flatMapThrowing { channel in
                let calls = try channel.pipeline.syncOperations.handler(type: GRPCCallMultiplexer.self)
                guard isCurrent() else {  // shut down meanwhile
                    calls.close()
                    return
                }
                state.value = .connected(calls)
                // A call that comes after the connection closed connects again.
                channel.closeFuture.assumeIsolated().whenComplete { _ in
                    if case .connected(let current) = state.value, current === calls { state.value = .idle }
                }
            }
            .always { result in
                if case .failure = result, isCurrent() { state.value = .idle }
            }
            .cascade(to: ready)
        return ready.futureResult
    }

    private func requestHeaders(_ method: String, metadata: [(String, String)]) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(6 + metadata.count)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "http")
        headers.add(name: ":path", value: method)
        headers.add(name: ":authority", value: authority)
        headers.add(name: "content-type", value: "application/grpc")
        headers.add(name: "te", value: "trailers")
        for (name, value) in metadata { headers.add(name: name, value: value) }
        return headers
    }
}
