import NIOCore
import PropdJSON

/// A message on its way out, before encoding.
///
/// The cases with a large payload are `indirect`, so the enum is one word
/// and a tag: it fits the inline storage of the `NIOAny` that carries it
/// down the pipeline, and a ``frame(_:)`` (one per event and subscriber)
/// travels without a box of its own.
enum VarlinkOutboundMessage: Sendable {
    indirect case call(VarlinkCall)
    indirect case reply(VarlinkReply)
    /// A whole message and its NUL, framed by its producer once for every
    /// stream that sends it (``VarlinkWireFormat/continuingReplyFrame(reservingCapacity:_:)``).
    case frame([UInt8])
    /// A reply whose parameters write their own bytes.
    indirect case encodableReply(any JSONObjectEncodable)
    /// No bytes: its write promise completes once everything before it is
    /// written, which is when a connection may close without losing replies.
    case barrier
}

/// Encodes outbound messages, coalescing everything written between two
/// flushes into one buffer: a burst of pipelined replies leaves as one
/// `write(2)`, not one per reply. A small buffer is kept once written and
/// cleared for the next burst, so a connection that answers one call (or
/// delivers one batch of events) at a time allocates no buffer per burst.
final class VarlinkMessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = VarlinkOutboundMessage
    typealias OutboundOut = ByteBuffer

    private var pending: ByteBuffer?
    /// The last buffer handed down, while small. Its storage is shared with
    /// the channel until the socket has taken it; clearing a shared buffer
    /// gives it new storage, so a write still queued is never overwritten.
    private var spare: ByteBuffer?
    /// The largest buffer kept between bursts: room for the usual replies and
    /// events, while an idle connection holds at most this much.
    static let spareCapacityLimit = 1024
    /// The promise of the coalesced write; later promises are chained to it.
    private var pendingPromise: EventLoopPromise<Void>?
    private var scratch: [UInt8] = []
    static let coalescingLimit = 16 * 1024

    init() {
        scratch.reserveCapacity(256)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let message = unwrapOutboundIn(data)
        var buffer = pending ?? freshBuffer(for: message, context: context)
        pending = nil  // keep the buffer uniquely referenced while appending
        switch message {
        case .call(let call): VarlinkWireFormat.write(call, into: &buffer, scratch: &scratch)
        case .reply(let reply): VarlinkWireFormat.write(reply, into: &buffer, scratch: &scratch)
        case .frame(let bytes): buffer.writeBytes(bytes)
        case .encodableReply(let parameters):
            VarlinkWireFormat.writeReply(parameters, into: &buffer, scratch: &scratch)
        case .barrier: break
        }
        pending = buffer
        defer {
            // A long burst goes down unflushed in slices, so the channel's
            // writability (what streams check for backpressure) sees it.
            if buffer.readableBytes >= Self.coalescingLimit { writePending(context: context) }
        }
        if let promise {
            if let pendingPromise {
                pendingPromise.futureResult.cascade(to: promise)
            } else {
                pendingPromise = promise
            }
        }
    }

    /// The spare buffer, cleared, or a new one.
    private func freshBuffer(for message: VarlinkOutboundMessage, context: ChannelHandlerContext) -> ByteBuffer {
        let capacity = Self.initialCapacity(for: message)
        guard var buffer = spare else { return context.channel.allocator.buffer(capacity: capacity) }
        spare = nil
        buffer.clear(minimumCapacity: capacity)
        return buffer
    }

    /// A new buffer's size: room for the usual reply, or for the whole
    /// frame it starts with, so that it is not reallocated at once.
    private static func initialCapacity(for message: VarlinkOutboundMessage) -> Int {
        if case .frame(let bytes) = message { return max(256, bytes.count) }
        return 256
    }

    func flush(context: ChannelHandlerContext) {
        writePending(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if pending != nil {
            writePending(context: context)
            context.flush()
        }
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pending = nil
        spare = nil
        pendingPromise?.fail(ChannelError.ioOnClosedChannel)
        pendingPromise = nil
    }

    private func writePending(context: ChannelHandlerContext) {
        guard let buffer = pending else { return }
        let promise = pendingPromise
        pending = nil
        pendingPromise = nil
        context.write(wrapOutboundOut(buffer), promise: promise)
        spare = buffer.capacity <= Self.spareCapacityLimit ? buffer : nil
    }
}
