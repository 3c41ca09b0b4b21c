import Foundation
import GRPCCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// gRPC calls on the streams of one HTTP/2 connection, handled as frames: a
/// call is a stream ID and an entry in a table. A unary call's request is
/// one HEADERS and one DATA frame, its reply collected from the frames that
/// carry its stream ID; a stream call (a watch) sends more requests as its
/// caller asks and hands each reply message to its caller as it arrives.
/// It sits behind a ``NIOHTTP2Handler`` built without a stream multiplexer,
/// on the connection's event loop.
///
/// Why not swift-nio-http2's multiplexer: it makes, activates and closes a
/// child channel with its own pipeline for every stream, on the loop that
/// sends propd's transactions; with this handler and the shared writes below,
/// a cluster Set costs propd about a fifth less CPU (BENCHMARKS.md, "The
/// cluster"). It does what the multiplexer did for the calls: it numbers the
/// streams, gives back the flow-control windows of the replies it reads, and
/// ends a call whose stream closed without a status.
///
/// The calls that start in one turn of the loop share one socket write: those
/// started while the connection's replies are being read (a reply that lets
/// the next transaction go) are flushed when the read ends, the others by a
/// task queued behind the loop's tasks of that turn.
final class GRPCCallMultiplexer: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = Never
    typealias OutboundOut = HTTP2Frame

    /// The stream window this client advertises; a reply larger than it
    /// flows on as the window is given back.
    static let streamWindow = 1 << 20
    /// The window the peer starts each connection with (RFC 9113 §6.9.2),
    /// given back in steps of half of it.
    private static let connectionWindow = 65_535

    /// A call that never left: ``EtcdFailure`` reads grpc-swift's message for
    /// it as not applied, so the call may go to another member.
    static var neverSent: RPCError { RPCError(code: .unavailable, message: "channel is closed") }
    /// A call whose stream or connection went away after it was sent: it may have applied.
    private static var streamLost: RPCError { RPCError(code: .unavailable, message: "Stream unexpectedly closed.") }

    /// A call in flight.
    private struct Call {
        /// A unary call's one reply message; a stream call's end (an empty buffer).
        var reply: EventLoopPromise<ByteBuffer>
        /// `nil` for a stream call: it lasts until either side ends it.
        var deadline: NIODeadline?
        /// The reply's bytes so far (gRPC length-prefixed messages); a
        /// stream call's holds at most the start of its next message.
        var body: ByteBuffer?
        /// DATA bytes read on the stream and not yet given back to its window.
        var unreturnedBytes = 0
        /// A stream call's: each reply message, on the loop, as it arrives;
        /// what it throws ends the call.
        var onMessage: ((ByteBuffer) throws -> Void)?
    }

    private let eventLoop: any EventLoop
    private let timeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var calls: [HTTP2StreamID: Call] = [:]
    private var nextStreamID = HTTP2StreamID(1)
    private var deadlineTimer: Scheduled<Void>?
    /// DATA bytes read on the connection and not yet given back to its window.
    private var unreturnedConnectionBytes = 0
    private var reading = false
    private var flushWhenReadEnds = false
    private var flushQueued = false
    /// Frames of calls that started before the connection was active: NIO
    /// completes a connect before its `channelActive`, which sends the
    /// HTTP/2 preface that must come first.
    private var beforeActive: [HTTP2Frame]? = []
    /// Whether a new call may start: false once the connection closed, the
    /// peer sent GOAWAY, or the stream IDs ran out.
    private(set) var acceptsCalls = true

    init(timeout: TimeAmount, on eventLoop: any EventLoop) {
        self.timeout = timeout
        self.eventLoop = eventLoop
    }

    /// Sends `message` (a serialized request) on a new stream with `headers`;
    /// the reply's one message, or the call's failure as an ``RPCError``.
    func start(headers: HPACKHeaders, message: [UInt8]) -> EventLoopFuture<ByteBuffer> {
        open(headers, message, Call(reply: eventLoop.makePromise(), deadline: .now() + timeout))?.reply
            ?? eventLoop.makeFailedFuture(Self.neverSent)  // nothing was sent: the caller may try another connection
    }

    /// Opens a stream call with its first request, `message`: each reply
    /// message goes to `onMessage` as it arrives, on the loop, until the
    /// member ends the call (`reply` succeeds on status OK and fails with
    /// any other), the connection goes, or ``cancel(_:with:)``; what
    /// `onMessage` throws cancels the call with that error. `nil` when the
    /// connection takes no calls: nothing was sent.
    func startStream(
        headers: HPACKHeaders, message: [UInt8], onMessage: @escaping (ByteBuffer) throws -> Void
    ) -> (id: HTTP2StreamID, reply: EventLoopFuture<ByteBuffer>)? {
        open(headers, message, Call(reply: eventLoop.makePromise(), onMessage: onMessage))
    }

    /// Sends one more request `message` on the open stream call `streamID`.
    func send(_ message: [UInt8], on streamID: HTTP2StreamID) {
        guard let context, calls[streamID] != nil else { return }
        let frame = HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(framed(message, context)))))
        if beforeActive != nil {
            beforeActive?.append(frame)
            return
        }
        context.write(wrapOutboundOut(frame), promise: nil)
        flushSoon()
    }

    /// Ends the call `streamID` from this side: its stream is reset and the
    /// call fails with `error`.
    func cancel(_ streamID: HTTP2StreamID, with error: any Error) {
        guard let call = end(streamID) else { return }
        call.reply.fail(error)
        context?.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
        flushSoon()
    }

    /// Writes a new call's HEADERS and first DATA frame and enters it in the table.
    private func open(_ headers: HPACKHeaders, _ message: [UInt8], _ call: Call) -> (id: HTTP2StreamID, reply: EventLoopFuture<ByteBuffer>)? {
        guard acceptsCalls, let context else { return nil }
        let streamID = nextStreamID
        nextStreamID = streamID.advanced(by: 2)
        calls[streamID] = call
        // The last stream ID: the connection closes once this call ends.
        if nextStreamID > HTTP2StreamID.maxID.advanced(by: -2) { acceptsCalls = false }
        if deadlineTimer == nil, call.deadline != nil { armDeadlineTimer(context) }

        let request = HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers)))
        let body = HTTP2Frame(
            streamID: streamID,
            payload: .data(.init(data: .byteBuffer(framed(message, context)), endStream: call.onMessage == nil)))
        if beforeActive != nil {
            beforeActive?.append(contentsOf: [request, body])
        } else {
            context.write(wrapOutboundOut(request), promise: nil)
            context.write(wrapOutboundOut(body), promise: nil)
            flushSoon()
        }
        return (streamID, call.reply.futureResult)
    }

    /// `message` as gRPC sends it: a compression flag (none), a 4-byte length, the bytes.
    private func framed(_ message: [UInt8], _ context: ChannelHandlerContext) -> ByteBuffer {
        var frame = context.channel.allocator.buffer(capacity: 5 + message.count)
        frame.writeInteger(UInt8(0))
        frame.writeInteger(UInt32(message.count))
        frame.writeBytes(message)
        return frame
    }

    /// Flushes what was written: when the read under way ends, or after the
    /// loop's other tasks of this tick, so the calls they start share the write.
    private func flushSoon() {
        if reading {
            flushWhenReadEnds = true
        } else if !flushQueued {
            flushQueued = true
            eventLoop.assumeIsolated().execute { [self] in
                flushQueued = false
                self.context?.flush()
            }
        }
    }

    /// Closes the connection; the calls on it fail as the connection lost.
    func close() {
        acceptsCalls = false
        context?.close(promise: nil)
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()  // the preface goes first
        let frames = beforeActive ?? []
        beforeActive = nil
        for frame in frames { context.write(wrapOutboundOut(frame), promise: nil) }
        if !frames.isEmpty { context.flush() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failAll(Self.streamLost)
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            received(headers.headers, on: frame.streamID)
        case .data(let data):
            received(data, on: frame.streamID, context)
        case .goAway:
            // No new stream may start here; the ones the peer kept finish.
            retire(context)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        if unreturnedConnectionBytes >= Self.connectionWindow / 2 {
            returnWindow(unreturnedConnectionBytes, of: .rootStream, context)
            unreturnedConnectionBytes = 0
        }
        if flushWhenReadEnds {
            flushWhenReadEnds = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A stream that closed before its status came: reset by the peer, or
        // above the last stream ID of a GOAWAY. The request may have applied.
        if let closed = event as? StreamClosedEvent {
            fail(closed.streamID, Self.streamLost)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        acceptsCalls = false
        failAll(Self.streamLost)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            fail(streamError.streamID, RPCError(code: .unavailable, message: "the stream to the etcd member failed: \(streamError)"))
            return
        }
        acceptsCalls = false
        failAll(RPCError(code: .unavailable, message: "the connection to the etcd member failed: \(error)"))
        context.close(promise: nil)
    }

    // MARK: Replies

    private func received(_ headers: HPACKHeaders, on streamID: HTTP2StreamID) {
        // The response's headers, then its trailers (or trailers only).
        if let status = headers.first(name: "grpc-status") {
            finish(streamID, status: status, message: headers.first(name: "grpc-message"))
        } else if let code = headers.first(name: ":status"), code != "200" {
            fail(streamID, RPCError(code: .unavailable, message: "HTTP \(code) from the etcd member"))
        }
    }

    private func received(_ data: HTTP2Frame.FramePayload.Data, on streamID: HTTP2StreamID, _ context: ChannelHandlerContext) {
        guard case .byteBuffer(var bytes) = data.data else { return }
        let flowControlled = bytes.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
        unreturnedConnectionBytes += flowControlled
        // Changed in place: a copy of the call would copy its body per frame.
        guard let index = calls.index(forKey: streamID) else { return }
        if calls.values[index].body == nil {
            calls.values[index].body = bytes
        } else {
            calls.values[index].body?.writeBuffer(&bytes)
        }
        calls.values[index].unreturnedBytes += flowControlled
        if calls.values[index].unreturnedBytes >= Self.streamWindow / 2, !data.endStream {
            returnWindow(calls.values[index].unreturnedBytes, of: streamID, context)
            calls.values[index].unreturnedBytes = 0
        }
        // A stream call's whole messages, each handed over as it is read;
        // the call is looked up again after each, since handing one over may
        // start or end calls.
        while let index = calls.index(forKey: streamID), let onMessage = calls.values[index].onMessage,
            var body = calls.values[index].body
        {
            let message: ByteBuffer
            do {
                guard let next = try Self.nextMessage(&body) else {
                    // The start of the next message stays, moved to the front.
                    if body.readableBytes > 0 { body.discardReadBytes() }
                    calls.values[index].body = body.readableBytes > 0 ? body : nil
                    return
                }
                message = next
            } catch {
                cancel(streamID, with: error)
                return
            }
            calls.values[index].body = body
            do {
                try onMessage(message)
            } catch {
                cancel(streamID, with: error)
                return
            }
        }
    }

    /// Reads the next whole message from `body` (a compression flag, a
    /// 4-byte length, the bytes); `nil` while not all of it has arrived.
    /// - Throws: a compressed message, which this client never asks for.
    private static func nextMessage(_ body: inout ByteBuffer) throws(RPCError) -> ByteBuffer? {
        guard let flag = body.getInteger(at: body.readerIndex, as: UInt8.self),
            let length = body.getInteger(at: body.readerIndex + 1, as: UInt32.self),
            body.readableBytes >= 5 + Int(length)
        else { return nil }
        guard flag == 0 else { throw RPCError(code: .internalError, message: "the etcd member sent a compressed message") }
        body.moveReaderIndex(forwardBy: 5)
        return body.readSlice(length: Int(length))
    }

    private func finish(_ streamID: HTTP2StreamID, status: String, message: String?) {
        guard let call = end(streamID) else { return }
        guard let code = Int(status).flatMap({ Status.Code(rawValue: $0) }) else {
            call.reply.fail(RPCError(code: .unknown, message: "an unreadable grpc-status \(status)"))
            return
        }
        guard code == .ok else {
            let text = message?.removingPercentEncoding ?? message ?? ""
            call.reply.fail(RPCError(code: RPCError.Code(code) ?? .unknown, message: text))
            return
        }
        // A stream call's messages went to its caller as they came.
        if call.onMessage != nil {
            call.reply.succeed(ByteBuffer())
            return
        }
        guard var body = call.body, let message = try? Self.nextMessage(&body) else {
            call.reply.fail(RPCError(code: .internalError, message: "the etcd member's reply is not one uncompressed message"))
            return
        }
        call.reply.succeed(message)
    }

    // MARK: Failures and deadlines

    private func fail(_ streamID: HTTP2StreamID, _ error: RPCError) {
        end(streamID)?.reply.fail(error)
    }

    /// Removes a call that ended; a retired connection closes with its last call.
    private func end(_ streamID: HTTP2StreamID) -> Call? {
        let call = calls.removeValue(forKey: streamID)
        if call != nil, !acceptsCalls, calls.isEmpty { context?.close(promise: nil) }
        return call
    }

    private func failAll(_ error: RPCError) {
        let failed = calls
        calls = [:]
        deadlineTimer?.cancel()
        deadlineTimer = nil
        for call in failed.values { call.reply.fail(error) }
    }

    /// One timer for every call: it fires at the earliest deadline, fails
    /// the calls past theirs (resetting their streams), and is set again.
    private func armDeadlineTimer(_ context: ChannelHandlerContext) {
        guard let earliest = calls.values.lazy.compactMap(\.deadline).min() else { return }
        deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: earliest) { [self] in
            deadlineTimer = nil
            let now = NIODeadline.now()
            let late = calls.filter { $0.value.deadline.map { $0 <= now } ?? false }
            for (streamID, call) in late {
                _ = end(streamID)
                call.reply.fail(RPCError(code: .deadlineExceeded, message: "the etcd member did not answer in time"))
                context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
            }
            if !late.isEmpty { context.flush() }
            armDeadlineTimer(context)
        }
    }

    private func returnWindow(_ bytes: Int, of streamID: HTTP2StreamID, _ context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .windowUpdate(windowSizeIncrement: bytes))), promise: nil)
        flushWhenReadEnds = true
    }

    /// Takes no new calls; closes the connection once the last call ended.
    private func retire(_ context: ChannelHandlerContext) {
        acceptsCalls = false
        if calls.isEmpty { context.close(promise: nil) }
    }
}
