import NIOCore
import PropdJSON

/// A message on its way out, before encoding.
enum VarlinkOutboundMessage: Sendable {
    case call(VarlinkCall)
    case reply(VarlinkReply)
    /// A reply whose parameters object was encoded by its producer (once for
    /// all the streams that send it).
    case encodedReply(parameters: ByteBuffer, continues: Bool)
    /// A reply whose parameters write their own bytes.
    case encodableReply(any JSONObjectEncodable)
    /// No bytes: its write promise completes once everything before it is
    /// written, which is when a connection may close without losing replies.
    case barrier
}

/// Encodes outbound messages, coalescing everything written between two
/// flushes into one buffer: a burst of pipelined replies leaves as one
/// allocation and one `write(2)`, not one per reply.
final class VarlinkMessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = VarlinkOutboundMessage
    typealias OutboundOut = ByteBuffer

    private var pending: ByteBuffer?
    /// The promise of the coalesced write; later promises are chained to it.
    private var pendingPromise: EventLoopPromise<Void>?
    private var scratch: [UInt8] = []
    static let coalescingLimit = 16 * 1024

    init() {
        scratch.reserveCapacity(256)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = pending ?? context.channel.allocator.buffer(capacity: 256)
        pending = nil  // keep the buffer uniquely referenced while appending
        switch unwrapOutboundIn(data) {
        case .call(let call): VarlinkWireFormat.write(call, into: &buffer, scratch: &scratch)
        case .reply(let reply): VarlinkWireFormat.write(reply, into: &buffer, scratch: &scratch)
        case .encodedReply(let parameters, let continues):
            VarlinkWireFormat.writeReply(encodedParameters: parameters, continues: continues, into: &buffer)
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
        pendingPromise?.fail(ChannelError.ioOnClosedChannel)
        pendingPromise = nil
    }

    private func writePending(context: ChannelHandlerContext) {
        guard let buffer = pending else { return }
        let promise = pendingPromise
        pending = nil
        pendingPromise = nil
        context.write(wrapOutboundOut(buffer), promise: promise)
    }
}
