import NIOCore
import PropdJSON

/// What a caller hands to the connection's event loop.
enum VarlinkClientRequest: Sendable {
    case call(VarlinkCall, CheckedContinuation<[String: JSONValue], any Error>)
    case stream(VarlinkCall, AsyncThrowingStream<[String: JSONValue], any Error>.Continuation)
    case oneway(VarlinkCall, EventLoopPromise<Void>)
    case batch([VarlinkCall], CheckedContinuation<[Result<[String: JSONValue], VarlinkCallError>], any Error>)
}

/// Matches replies to calls, in order, on the client side.
///
/// Requests are handed to it directly on its event loop (not through the
/// pipeline), so it alone decides the fate of every waiter: each is
/// answered exactly once, even when the connection is already gone. Writes
/// made in one event-loop tick (concurrent callers) leave with one flush.
final class VarlinkClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = VarlinkOutboundMessage

    /// The replies of one pipelined batch, gathered on the event loop.
    private final class Batch {
        let continuation: CheckedContinuation<[Result<[String: JSONValue], VarlinkCallError>], any Error>
        var results: [Result<[String: JSONValue], VarlinkCallError>] = []
        let expected: Int
        var done = false

        init(expected: Int, continuation: CheckedContinuation<[Result<[String: JSONValue], VarlinkCallError>], any Error>) {
            self.expected = expected
            self.continuation = continuation
            results.reserveCapacity(expected)
        }
    }

    /// Who waits for the next reply.
    private enum Waiter {
        case reply(CheckedContinuation<[String: JSONValue], any Error>)
        case stream(AsyncThrowingStream<[String: JSONValue], any Error>.Continuation)
        case batch(Batch)
    }

    private let path: String
    private var context: ChannelHandlerContext?
    private var waiters = CircularBuffer<Waiter>(initialCapacity: 16)
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

    /// Sends a request; on the event loop.
    func enqueue(_ request: VarlinkClientRequest) {
        guard closedError == nil, let context else {
            let error = closedError ?? .init(code: .connectionClosed, path: path, reason: "closed")
            switch request {
            case .call(_, let continuation): continuation.resume(throwing: error)
            case .stream(_, let continuation): continuation.finish(throwing: error)
            case .oneway(_, let promise): promise.fail(error)
            case .batch(_, let continuation): continuation.resume(throwing: error)
            }
            return
        }
        switch request {
        case .call(let call, let continuation):
            waiters.append(.reply(continuation))
            context.write(wrapOutboundOut(.call(call)), promise: nil)
        case .stream(let call, let continuation):
            waiters.append(.stream(continuation))
            context.write(wrapOutboundOut(.call(call)), promise: nil)
        case .oneway(let call, let promise):
            context.write(wrapOutboundOut(.call(call)), promise: promise)
        case .batch(let calls, let continuation):
            guard !calls.isEmpty else {
                continuation.resume(returning: [])
                return
            }
            let batch = Batch(expected: calls.count, continuation: continuation)
            for call in calls {
                waiters.append(.batch(batch))
                context.write(wrapOutboundOut(.call(call)), promise: nil)
            }
        }
        scheduleFlush(context: context)
    }

    private func scheduleFlush(context: ChannelHandlerContext) {
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
        guard let waiter = waiters.first else {
            abandon(context: context, error: .init(code: .malformedReply, path: path, reason: "reply without a call"))
            return
        }
        let error = reply.error.map { VarlinkCallError(name: $0, parameters: reply.parameters) }
        switch waiter {
        case .reply(let continuation):
            waiters.removeFirst()
            if let error {
                continuation.resume(throwing: error)
            } else {
                continuation.resume(returning: reply.parameters)
            }
        case .stream(let continuation):
            if let error {
                waiters.removeFirst()
                continuation.finish(throwing: error)
            } else {
                continuation.yield(reply.parameters)
                if !reply.continues {
                    waiters.removeFirst()
                    continuation.finish()
                }
            }
        case .batch(let batch):
            waiters.removeFirst()
            batch.results.append(error.map { .failure($0) } ?? .success(reply.parameters))
            if batch.results.count == batch.expected, !batch.done {
                batch.done = true
                batch.continuation.resume(returning: batch.results)
            }
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
        while let waiter = waiters.popFirst() {
            switch waiter {
            case .reply(let continuation): continuation.resume(throwing: error)
            case .stream(let continuation): continuation.finish(throwing: error)
            case .batch(let batch):
                if !batch.done {
                    batch.done = true
                    batch.continuation.resume(throwing: error)
                }
            }
        }
    }
}
