import NIOCore
import PropdJSON

/// A call on its way out with whatever waits for its replies.
struct VarlinkClientRequest: Sendable {
    enum Receiver: Sendable {
        case reply(EventLoopPromise<[String: JSONValue]>)
        case stream(AsyncThrowingStream<[String: JSONValue], any Error>.Continuation)
        /// A oneway call: nothing comes back.
        case none
    }

    var call: VarlinkCall
    var receiver: Receiver
}

/// Matches replies to calls, in order, on the client side. Writes made in
/// one event-loop tick (concurrent callers) leave with one flush.
final class VarlinkClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = VarlinkClientRequest
    typealias OutboundOut = VarlinkOutboundMessage

    private let path: String
    private var receivers = CircularBuffer<VarlinkClientRequest.Receiver>(initialCapacity: 16)
    private var closedError: VarlinkConnectionError?
    private var flushScheduled = false

    init(path: String) {
        self.path = path
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let closedError {
            fail(request.receiver, with: closedError)
            promise?.fail(closedError)
            return
        }
        if case .none = request.receiver {} else { receivers.append(request.receiver) }
        context.write(wrapOutboundOut(.call(request.call)), promise: promise)
        guard !flushScheduled else { return }
        flushScheduled = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = bound.value
            handler.flushScheduled = false
            context.flush()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply: VarlinkReply
        do {
            reply = try VarlinkReply(message: try VarlinkWireFormat.parseMessage(unwrapInboundIn(data)))
        } catch {
            abandon(context: context, error: VarlinkConnectionError(code: .malformedReply, path: path, reason: "\(error)"))
            return
        }
        guard let receiver = receivers.first else {
            abandon(context: context, error: .init(code: .malformedReply, path: path, reason: "reply without a call"))
            return
        }
        switch receiver {
        case .reply(let promise):
            receivers.removeFirst()
            if let name = reply.error {
                promise.fail(VarlinkCallError(name: name, parameters: reply.parameters))
            } else {
                promise.succeed(reply.parameters)
            }
        case .stream(let continuation):
            if let name = reply.error {
                receivers.removeFirst()
                continuation.finish(throwing: VarlinkCallError(name: name, parameters: reply.parameters))
            } else {
                continuation.yield(reply.parameters)
                if !reply.continues {
                    receivers.removeFirst()
                    continuation.finish()
                }
            }
        case .none:
            receivers.removeFirst()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        abandon(context: context, error: .init(code: .connectionClosed, path: path, reason: "\(error)"))
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(.init(code: .connectionClosed, path: path, reason: "closed"))
        context.fireChannelInactive()
    }

    private func abandon(context: ChannelHandlerContext, error: VarlinkConnectionError) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: VarlinkConnectionError) {
        if closedError == nil { closedError = error }
        while let receiver = receivers.popFirst() { fail(receiver, with: error) }
    }

    private func fail(_ receiver: VarlinkClientRequest.Receiver, with error: VarlinkConnectionError) {
        switch receiver {
        case .reply(let promise): promise.fail(error)
        case .stream(let continuation): continuation.finish(throwing: error)
        case .none: break
        }
    }
}
