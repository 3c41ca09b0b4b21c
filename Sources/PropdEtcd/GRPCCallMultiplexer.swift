import Foundation
import GRPCCore
import NIOCore
import NIOHPACK

/// gRPC calls on the streams of one HTTP/2 connection, the whole of the
/// connection's pipeline: a call is a stream ID and an entry in a table. A
/// unary call's request is one HEADERS and one DATA frame, its reply
/// collected from the frames that carry its stream ID; a stream call (a
/// watch) sends more requests as its caller asks and hands each reply
/// message to its caller as it arrives. The frames are read and written by
/// an ``HTTP2ClientSession``, on the connection's event loop.
///
/// Why not swift-nio-http2's handler and multiplexer: the multiplexer makes,
/// activates and closes a child channel with its own pipeline for every
/// stream, and the handler passes each frame down the pipeline as a value of
/// its own, on the loop that sends propd's transactions (BENCHMARKS.md, "The
/// cluster"). This handler ends a call on its trailers, on its stream's
/// reset, on a GOAWAY that did not take it, or when its stream closed
/// without a status.
///
/// The calls that start in one turn of the loop share one socket write: those
/// started while the connection's replies are being read (a reply that lets
/// the next transaction go) are flushed when the read ends, the others by a
/// task queued behind the loop's tasks of that turn.
final class GRPCCallMultiplexer: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = Never
    typealias OutboundOut = ByteBuffer

    /// The window this client gives each stream and the connection; a
    /// reply larger than it flows on as the window is given back.
    static let receiveWindow = 1 << 20

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
        /// A stream call's: each reply message, on the loop, as it arrives;
        /// what it throws ends the call.
        var onMessage: ((ByteBuffer) throws -> Void)?
    }

    private let eventLoop: any EventLoop
    private let timeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var session: HTTP2ClientSession?
    /// The frames written since the last flush.
    private var outbound = ByteBuffer()
    /// The message being sent, gRPC-framed: one buffer for every message,
    /// copied into ``outbound`` as the windows allow (DATA left waiting
    /// keeps its own copy of the storage).
    private var framing = ByteBuffer()
    private var calls: [UInt32: Call] = [:]
    private var nextStreamID: UInt32 = 1
    private var deadlineTimer: Scheduled<Void>?
    private var reading = false
    private var flushWhenReadEnds = false
    private var flushQueued = false
    /// Whether the connection is active: NIO completes a connect before its
    /// `channelActive`, so calls may start before it, their frames held
    /// behind the preface until then.
    private var active = false
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
    ) -> (id: UInt32, reply: EventLoopFuture<ByteBuffer>)? {
        open(headers, message, Call(reply: eventLoop.makePromise(), onMessage: onMessage))
    }

    /// Sends one more request `message` on the open stream call `streamID`.
    func send(_ message: [UInt8], on streamID: UInt32) {
        guard context != nil, calls[streamID] != nil else { return }
        session?.writeData(framed(message), streamID: streamID, endStream: false, into: &outbound)
        flushSoon()
    }

    /// Ends the call `streamID` from this side: its stream is reset and the
    /// call fails with `error`.
    func cancel(_ streamID: UInt32, with error: any Error) {
        guard let call = end(streamID) else { return }
        call.reply.fail(error)
        session?.writeReset(streamID, .cancel, into: &outbound)
        flushSoon()
    }

    /// Writes a new call's HEADERS and first DATA frame and enters it in the table.
    private func open(_ headers: HPACKHeaders, _ message: [UInt8], _ call: Call) -> (id: UInt32, reply: EventLoopFuture<ByteBuffer>)? {
        guard acceptsCalls, let context, session != nil else { return nil }
        let streamID = nextStreamID
        do {
            try session?.writeHeaders(headers, streamID: streamID, into: &outbound)
        } catch {
            return nil  // HPACK refused the headers: nothing was sent
        }
        nextStreamID = streamID + 2
        calls[streamID] = call
        // The last stream ID: the connection closes once this call ends.
        if nextStreamID > UInt32(Int32.max) - 2 { acceptsCalls = false }
        if deadlineTimer == nil, call.deadline != nil { armDeadlineTimer(context) }
        session?.writeData(framed(message), streamID: streamID, endStream: call.onMessage == nil, into: &outbound)
        flushSoon()
        return (streamID, call.reply.futureResult)
    }

    /// `message` as gRPC sends it: a compression flag (none), a 4-byte length, the bytes.
    private func framed(_ message: [UInt8]) -> ByteBuffer {
        framing.clear()
        framing.writeInteger(UInt8(0))
        framing.writeInteger(UInt32(message.count))
        framing.writeBytes(message)
        return framing
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
                flushNow()
            }
        }
    }

    /// Sends the frames written so far, once the connection is active.
    private func flushNow() {
        guard active, outbound.readableBytes > 0, let context else { return }
        context.writeAndFlush(wrapOutboundOut(outbound), promise: nil)
        // Written by now unless the socket was full: the storage is reused when NIO let it go.
        outbound.clear()
    }

    /// Closes the connection; the calls on it fail as the connection lost.
    func close() {
        acceptsCalls = false
        context?.close(promise: nil)
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // The preface goes first, before the frames of any call.
        let session = HTTP2ClientSession(receiveWindow: Self.receiveWindow, allocator: context.channel.allocator)
        outbound = context.channel.allocator.buffer(capacity: 1024)
        session.start(into: &outbound)
        self.session = session
        if context.channel.isActive {
            active = true
            flushNow()
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !active {
            active = true
            flushNow()
        }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failAll(Self.streamLost)
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        session?.receive(unwrapInboundIn(data))
        do {
            while let event = try session?.nextEvent(into: &outbound) {
                handle(event, context)
            }
        } catch {
            // The server broke HTTP/2: the connection's state cannot be trusted.
            HTTP2Wire.writeGoAway(lastStreamID: 0, error.code, into: &outbound)
            flushNow()
            session = nil
            fail(connection: error, context)
        }
        if outbound.readableBytes > 0 { flushWhenReadEnds = true }  // SETTINGS and PING answered, windows given back
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        if flushWhenReadEnds {
            flushWhenReadEnds = false
            flushNow()
        }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        active = false
        acceptsCalls = false
        failAll(Self.streamLost)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(connection: error, context)
    }

    private func fail(connection error: any Error, _ context: ChannelHandlerContext) {
        acceptsCalls = false
        failAll(RPCError(code: .unavailable, message: "the connection to the etcd member failed: \(error)"))
        context.close(promise: nil)
    }

    // MARK: Replies

    private func handle(_ event: HTTP2ClientSession.Event, _ context: ChannelHandlerContext) {
        switch event {
        case .headers(let streamID, let headers, let endStream):
            received(headers, on: streamID, endStream: endStream)
        case .data(let streamID, let bytes, let endStream):
            received(bytes, on: streamID)
            // A stream the server ended without a status: the request may have applied.
            if endStream { fail(streamID, Self.streamLost) }
        case .reset(let streamID, let code):
            // A refused stream was not processed (RFC 9113 §8.7); any other reset's request may have applied.
            fail(streamID, code == HTTP2Wire.ErrorCode.refusedStream.rawValue ? Self.neverSent : Self.streamLost)
        case .goAway(let lastStreamID, _):
            // No new stream may start here; the ones the server kept finish,
            // and those above its last were not processed (RFC 9113 §6.8).
            acceptsCalls = false
            for streamID in calls.keys where streamID > lastStreamID { fail(streamID, Self.neverSent) }
            if calls.isEmpty { context.close(promise: nil) }
        }
    }

    private func received(_ headers: HPACKHeaders, on streamID: UInt32, endStream: Bool) {
        // The response's headers, then its trailers (or trailers only).
        if let status = headers.first(name: "grpc-status") {
            finish(streamID, status: status, message: headers.first(name: "grpc-message"))
        } else if let code = headers.first(name: ":status"), code != "200" {
            fail(streamID, RPCError(code: .unavailable, message: "HTTP \(code) from the etcd member"))
        } else if endStream {
            fail(streamID, Self.streamLost)
        }
    }

    private func received(_ data: ByteBuffer, on streamID: UInt32) {
        var bytes = data
        // Changed in place: a copy of the call would copy its body per frame.
        guard let index = calls.index(forKey: streamID) else { return }
        if calls.values[index].body == nil {
            calls.values[index].body = bytes
        } else {
            calls.values[index].body?.writeBuffer(&bytes)
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

    private func finish(_ streamID: UInt32, status: String, message: String?) {
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

    private func fail(_ streamID: UInt32, _ error: RPCError) {
        end(streamID)?.reply.fail(error)
    }

    /// Removes a call that ended; a retired connection closes with its last call.
    private func end(_ streamID: UInt32) -> Call? {
        let call = calls.removeValue(forKey: streamID)
        session?.closeStream(streamID)
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
                session?.writeReset(streamID, .cancel, into: &outbound)
            }
            if !late.isEmpty { flushNow() }
            armDeadlineTimer(context)
        }
    }
}
