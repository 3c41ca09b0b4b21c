import Foundation
import GRPCCore
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import SwiftProtobuf

/// One HTTP/2 connection to a member's gRPC API on one event loop, for
/// unary calls whose replies are handled on that loop: the route of
/// ``EtcdClient/txnFuture(_:success:failure:)``.
///
/// grpc-swift's client runs every call through Swift tasks, so a caller on
/// an event loop pays thread hand-overs there and back; this speaks gRPC's
/// framing (a length-prefixed protobuf message each way, the status in the
/// trailers) directly on a stream of the connection, on the loop. It also
/// raises swift-nio-http2's control-frame limit, which etcd's one PING per
/// request would otherwise exhaust (BENCHMARKS.md, "Why PropdEtcd replaces a
/// connection every 100 RPCs").
///
/// Failures are reported as the ``RPCError`` grpc-swift would give, so
/// ``EtcdFailure`` classifies both alike: no connection is `unavailable`
/// and never sent; a stream or connection lost, or a call timed out, with
/// the request on it may have applied it.
final class LoopUnaryConnection: Sendable {
    let endpoint: EtcdEndpoint
    let loop: any EventLoop
    private let requestTimeout: TimeAmount
    /// The connection's stream multiplexer, once connecting began; `nil` again once it closed.
    private let connection: NIOLoopBoundBox<EventLoopFuture<Connected>?>

    init(_ endpoint: EtcdEndpoint, requestTimeout: Duration, loop: any EventLoop) {
        self.endpoint = endpoint
        self.loop = loop
        let (seconds, attoseconds) = requestTimeout.components
        self.requestTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        connection = .makeEmptyBox(eventLoop: loop)
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
        let headers = requestHeaders(method, metadata: metadata)
        let (loop, timeout) = (loop, requestTimeout)
        return loop.flatSubmit {
            self.multiplexer().flatMap { multiplexer in
                let reply = loop.makePromise(of: [UInt8].self)
                let opened = loop.makePromise(of: (any Channel).self)
                // A stream that could not open fails the call (once the
                // handler is in, it reports every other failure itself).
                opened.futureResult.whenFailure { error in
                    reply.fail(RPCError(code: .unavailable, message: "Stream unexpectedly closed: \(error)"))
                }
                multiplexer.createStreamChannel(promise: opened) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(
                            UnaryCallHandler(headers: headers, message: message, reply: reply, timeout: timeout))
                    }
                }
                return reply.futureResult.flatMapThrowing { try Response(serializedBytes: $0) }
            }
        }
    }

    /// Closes the connection; calls on it fail as the connection lost.
    func shutdown() {
        loop.execute {
            let current = self.connection.value
            self.connection.value = nil
            current?.whenSuccess { $0.channel.close(promise: nil) }
        }
    }

    // MARK: Connection

    /// A connection and its stream multiplexer.
    private struct Connected {
        var channel: any Channel
        var multiplexer: NIOHTTP2Handler.StreamMultiplexer
    }

    /// The connection's multiplexer, connecting first if there is none (on ``loop``).
    private func multiplexer() -> EventLoopFuture<NIOHTTP2Handler.StreamMultiplexer> {
        if let current = connection.value { return current.map(\.multiplexer) }
        var settings = NIOHTTP2Handler.ConnectionConfiguration()
        // etcd's server pings once per request it receives (its flow
        // control's bandwidth estimator): allow that many.
        settings.controlFrameRateLimit.maximumCount = Int.max
        let (endpoint, box, configuration) = (endpoint, connection, settings)
        let connecting = ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(2))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .client, connectionConfiguration: configuration, streamConfiguration: .init()
                    ) { stream in stream.eventLoop.makeSucceededVoidFuture() }
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .flatMapErrorThrowing { error -> any Channel in
                throw RPCError(code: .unavailable, message: "Could not establish a connection to \(endpoint): \(error)")
            }
            .flatMapThrowing { channel in
                let handler = try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self)
                return Connected(channel: channel, multiplexer: try handler.syncMultiplexer())
            }
        box.value = connecting
        connecting.whenComplete { result in
            switch result {
            case .success(let connected):
                // The next call connects again.
                connected.channel.closeFuture.whenComplete { _ in
                    if box.value === connecting { box.value = nil }
                }
            case .failure:
                if box.value === connecting { box.value = nil }
            }
        }
        return connecting.map(\.multiplexer)
    }

    private func requestHeaders(_ method: String, metadata: [(String, String)]) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "http")
        headers.add(name: ":path", value: method)
        headers.add(name: ":authority", value: "\(endpoint.host):\(endpoint.port)")
        headers.add(name: "content-type", value: "application/grpc")
        headers.add(name: "te", value: "trailers")
        for (name, value) in metadata { headers.add(name: name, value: value) }
        return headers
    }
}

/// One unary call on its own HTTP/2 stream: sends the request's headers and
/// its one length-prefixed message, then collects the response's message
/// and the status from its trailers.
final class UnaryCallHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundIn = Never
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let headers: HPACKHeaders
    private let message: [UInt8]
    private let timeout: TimeAmount
    private var reply: EventLoopPromise<[UInt8]>?
    private var timer: Scheduled<Void>?
    private var body = ByteBuffer()

    init(headers: HPACKHeaders, message: [UInt8], reply: EventLoopPromise<[UInt8]>, timeout: TimeAmount) {
        self.headers = headers
        self.message = message
        self.reply = reply
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            fail(RPCError(code: .deadlineExceeded, message: "the etcd member did not answer in time"))
            context.close(promise: nil)
        }
        var frame = context.channel.allocator.buffer(capacity: 5 + message.count)
        frame.writeInteger(UInt8(0))  // not compressed
        frame.writeInteger(UInt32(message.count))
        frame.writeBytes(message)
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(frame), endStream: true))), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            // The response's headers, then its trailers (or trailers only).
            if let status = frame.headers.first(name: "grpc-status") {
                finish(status: status, message: frame.headers.first(name: "grpc-message"))
            } else if let code = frame.headers.first(name: ":status"), code != "200" {
                fail(RPCError(code: .unavailable, message: "HTTP \(code) from the etcd member"))
            }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data { body.writeBuffer(&buffer) }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(RPCError(code: .unavailable, message: "Stream unexpectedly closed."))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(RPCError(code: .unavailable, message: "the stream to the etcd member failed: \(error)"))
        context.close(promise: nil)
    }

    private func finish(status: String, message: String?) {
        guard let code = Int(status).flatMap({ Status.Code(rawValue: $0) }) else {
            fail(RPCError(code: .unknown, message: "an unreadable grpc-status \(status)"))
            return
        }
        guard code == .ok else {
            let text = message?.removingPercentEncoding ?? message ?? ""
            fail(RPCError(code: RPCError.Code(code) ?? .unknown, message: text))
            return
        }
        // One message: a compression flag, a 4-byte length, the bytes.
        guard body.readableBytes >= 5, body.getInteger(at: body.readerIndex, as: UInt8.self) == 0,
            let length = body.getInteger(at: body.readerIndex + 1, as: UInt32.self),
            let bytes = body.getBytes(at: body.readerIndex + 5, length: Int(length))
        else {
            fail(RPCError(code: .internalError, message: "the etcd member's reply is not one uncompressed message"))
            return
        }
        timer?.cancel()
        reply?.succeed(bytes)
        reply = nil
    }

    private func fail(_ error: RPCError) {
        timer?.cancel()
        guard let reply else { return }
        self.reply = nil
        reply.fail(error)
    }
}
