import NIOCore
import PropdJSON

/// A call on its way out with whatever waits for its replies.
struct VarlinkClientRequest: Sendable {
    enum Receiver: Sendable {
        case reply(CheckedContinuation<[String: JSONValue], any Error>)
        case stream(AsyncThrowingStream<[String: JSONValue], any Error>.Continuation)
        /// A oneway call: nothing comes back.
        case none
    }

    var call: VarlinkCall
    var receiver: Receiver
}

/// Matches replies to calls, in order, on the client side.
///
/// Requests are handed to it directly on its event loop (not through the
/// pipeline), so it alone decides the fate of every receiver: each is
/// answered exactly once, even when the connection is already gone. Writes
/// made in one event-loop tick (concurrent callers) leave with one flush.
final class VarlinkClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = VarlinkOutboundMessage

    private let path: String
    private var context: ChannelHandlerContext?
    private var receivers = CircularBuffer<VarlinkClientRequest.Receiver>(initialCapacity: 16)
    private var closedError: VarlinkConnectionError?
    private var flushScheduled = false

    init(path: String) {
        self.path = path
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failAll(.init(code: .connectionClosed, path: path, reason: "closed"))
        self.context = nil
    }

    /// Sends a call; on the event loop.
    func enqueue(_ request: VarlinkClientRequest, written: EventLoopPromise<Void>? = nil) {
        guard closedError == nil, let context else {
            let error = closedError ?? .init(code: .connectionClosed, path: path, reason: "closed")
            fail(request.receiver, with: error)
            written?.fail(error)
            return
        }
        if case .none = request.receiver {} else { receivers.append(request.receiver) }
        context.write(wrapOutboundOut(.call(request.call)), promise: written)
        guard !flushScheduled else { return }
        flushScheduled = true
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = bound.value
            handler.flushScheduled = false
            handler.context?.flush()
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
        case .reply(let continuation):
            receivers.removeFirst()
            if let name = reply.error {
                continuation.resume(throwing: VarlinkCallError(name: name, parameters: reply.parameters))
            } else {
                continuation.resume(returning: reply.parameters)
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
        case .reply(let continuation): continuation.resume(throwing: error)
        case .stream(let continuation): continuation.finish(throwing: error)
        case .none: break
        }
    }
}
