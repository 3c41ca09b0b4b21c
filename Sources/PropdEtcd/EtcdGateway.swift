import EtcdAPI
import Foundation
import GRPCCore
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import SwiftProtobuf

/// One member's JSON gateway (`POST /v3/kv/txn`, etcd's own grpc-gateway),
/// over HTTP/1.1 keep-alive connections: the route of ``EtcdClient/txn(_:success:failure:)``.
///
/// Measured against the member's gRPC API through grpc-swift 2 in the same
/// run (BENCHMARKS.md, "The cluster"), `propd --etcd` with its transactions
/// through the gateway gave 1.22× the Sets/s over 16 connections at the
/// same sequential latency: the gRPC route spends CPU in HTTP/2 stream
/// channels, per-call tasks, and a fresh connection every
/// ``EtcdMember/rpcsPerConnection`` calls (etcd pings each request).
/// Watches, leases and elections are long-lived streams and stay on gRPC.
///
/// A request's failure is reported as the ``RPCError`` the gRPC route would
/// give (the gateway's JSON error carries etcd's gRPC code and message), so
/// ``EtcdFailure`` classifies both alike: no connection is `unavailable`
/// and never sent; a connection lost or timed out with the request on it
/// may have applied it.
///
/// Its connections all live on the client's ``EtcdClient/transactionLoop``.
/// The store's writer does not take this route: its transactions are gRPC
/// calls on that loop (``LoopGRPCConnection``), which cost etcd less.
final class EtcdGateway: Sendable {
    let endpoint: EtcdEndpoint
    /// The loop every connection of this gateway lives on.
    let loop: any EventLoop
    private let requestTimeout: TimeAmount
    private let idle = Mutex<[any Channel]>([])
    /// Idle connections kept for the next requests; more are closed.
    private static let idleLimit = 64

    init(_ endpoint: EtcdEndpoint, requestTimeout: Duration, loop: any EventLoop) {
        self.endpoint = endpoint
        self.loop = loop
        let (seconds, attoseconds) = requestTimeout.components
        self.requestTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Runs one transaction; `hasleader` as every request of the client.
    func txn(_ request: Etcdserverpb_TxnRequest) async throws -> Etcdserverpb_TxnResponse {
        try await txnFuture(request).get()
    }

    /// ``txn(_:)``, completed on ``loop``.
    func txnFuture(_ request: Etcdserverpb_TxnRequest) -> EventLoopFuture<Etcdserverpb_TxnResponse> {
        let body: [UInt8]
        do {
            body = try request.jsonUTF8Bytes()
        } catch {
            return loop.makeFailedFuture(error)
        }
        return post("/v3/kv/txn", body).flatMapThrowing { reply in
            guard reply.status == .ok else { throw Self.error(from: reply) }
            var options = JSONDecodingOptions()
            options.ignoreUnknownFields = true
            return try Etcdserverpb_TxnResponse(jsonUTF8Bytes: reply.body, options: options)
        }
    }

    func shutdown() {
        let channels = idle.withLock { idle in
            defer { idle = [] }
            return idle
        }
        for channel in channels { channel.close(promise: nil) }
    }

    // MARK: Connections

    private func post(_ path: String, _ body: [UInt8]) -> EventLoopFuture<GatewayReply> {
        let (head, timeout) = (head(path, length: body.count), requestTimeout)
        return checkOut().flatMap { channel in
            let promise = channel.eventLoop.makePromise(of: GatewayReply.self)
            let exchange = GatewayExchange(head: head, body: ByteBuffer(bytes: body), reply: promise, timeout: timeout)
            channel.writeAndFlush(exchange, promise: nil)
            return promise.futureResult.map { reply in
                self.checkIn(channel, keepAlive: reply.keepAlive)
                return reply
            }.flatMapErrorThrowing { error in
                channel.close(promise: nil)
                throw error
            }
        }
    }

    private func head(_ path: String, length: Int) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: "\(endpoint.host):\(endpoint.port)")
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(length))
        // etcd refuses the request at once when its member has no leader
        // (the gRPC route's `hasleader` metadata).
        let (name, value) = EtcdMember.requireLeaderEntry
        head.headers.add(name: "Grpc-Metadata-" + name, value: value)
        return head
    }

    private func checkOut() -> EventLoopFuture<any Channel> {
        while let channel = idle.withLock({ $0.popLast() }) {
            if channel.isActive { return loop.makeSucceededFuture(channel) }
        }
        let endpoint = endpoint
        return ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(2))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(GatewayExchangeHandler())
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .flatMapErrorThrowing { error in
                throw RPCError(code: .unavailable, message: "Could not establish a connection to \(endpoint): \(error)")
            }
    }

    private func checkIn(_ channel: any Channel, keepAlive: Bool) {
        let kept = keepAlive && idle.withLock { idle in
            guard idle.count < Self.idleLimit else { return false }
            idle.append(channel)
            return true
        }
        if !kept { channel.close(promise: nil) }
    }

    /// The gateway's JSON error as gRPC's: `{"error", "message", "code"}`.
    private static func error(from reply: GatewayReply) -> RPCError {
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.body))) as? [String: Any]
        let code = (object?["code"] as? Int).flatMap { Status.Code(rawValue: $0) }.flatMap { RPCError.Code($0) }
        let message = object?["message"] as? String ?? "HTTP \(reply.status.code) from the etcd gateway"
        return RPCError(code: code ?? .unknown, message: message)
    }
}

/// What the gateway answered.
struct GatewayReply: Sendable {
    var status: HTTPResponseStatus
    var body: [UInt8]
    var keepAlive: Bool
}

/// One request on a connection, and where its answer goes.
struct GatewayExchange: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer
    var reply: EventLoopPromise<GatewayReply>
    var timeout: TimeAmount
}

/// One exchange at a time on an HTTP/1.1 connection: writes the request,
/// collects the response; a connection lost or timed out fails the
/// exchange in flight as one that may have been applied.
final class GatewayExchangeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = GatewayExchange
    typealias OutboundOut = HTTPClientRequestPart

    private var pending: EventLoopPromise<GatewayReply>?
    private var timeout: Scheduled<Void>?
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        pending = exchange.reply
        head = nil
        body = []
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: exchange.timeout) { [self] in
            fail(RPCError(code: .deadlineExceeded, message: "the etcd gateway did not answer in time"))
            context.close(promise: nil)
        }
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(exchange.body))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let responseHead):
            head = responseHead
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head, let pending else { return }
            self.pending = nil
            timeout?.cancel()
            pending.succeed(GatewayReply(status: head.status, body: body, keepAlive: head.isKeepAlive))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(RPCError(code: .unavailable, message: "the connection to the etcd gateway was lost"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(RPCError(code: .unavailable, message: "the connection to the etcd gateway failed: \(error)"))
        context.close(promise: nil)
    }

    private func fail(_ error: RPCError) {
        timeout?.cancel()
        guard let pending else { return }
        self.pending = nil
        pending.fail(error)
    }
}
