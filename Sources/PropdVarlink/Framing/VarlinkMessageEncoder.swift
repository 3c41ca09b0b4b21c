import NIOCore
import PropdJSON

/// A message on its way out, before encoding.
///
/// The cases with a large payload are `indirect`, so the enum is one word
/// and a tag: it fits the inline storage of the `NIOAny` that carries it
/// down a client's pipeline, a server connection's slots stay small, and a
/// ``frame(_:)`` (one per event and subscriber) travels without a box of
/// its own.
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

/// Encodes outbound messages for the handler before it, coalescing
/// everything written between two flushes into one buffer (see
/// ``VarlinkWriteCoalescer``): a client's pipeline.
final class VarlinkMessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = VarlinkOutboundMessage
    typealias OutboundOut = ByteBuffer

    private var output = VarlinkWriteCoalescer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if output.append(unwrapOutboundIn(data), promise: promise, allocator: context.channel.allocator) {
            writePending(context: context)
        }
    }

    func flush(context: ChannelHandlerContext) {
        writePending(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if output.hasPending {
            writePending(context: context)
            context.flush()
        }
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        output.discard()
    }

    private func writePending(context: ChannelHandlerContext) {
        guard let (bytes, promise) = output.take() else { return }
        context.write(wrapOutboundOut(bytes), promise: promise)
    }
}
