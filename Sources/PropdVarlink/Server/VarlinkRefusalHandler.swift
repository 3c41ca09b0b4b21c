import NIOCore

/// The whole pipeline of a connection refused for the connection limit:
/// answers its first call with the configured error, then closes.
final class VarlinkRefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = VarlinkOutboundMessage

    private let reply: VarlinkCallError
    private var answered = false

    init(reply: VarlinkCallError) {
        self.reply = reply
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.reply(VarlinkReply(error: reply)))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
