import NIOCore
import NIOHPACK
import SwiftProtobuf

/// One long-lived gRPC call on a member's ``LoopGRPCConnection`` (a
/// watch): its first request sent when it opens, each reply message handed
/// to its caller on the connection's loop as it arrives, more requests sent
/// with ``send(_:)``.
///
/// On the loop, a watch's events reach the mirror in the same turn that
/// reads them, and the events of a node's own transactions, which arrive
/// beside the transactions' replies, cost no thread hand-over (BENCHMARKS.md,
/// "The cluster").
final class LoopStreamCall: Sendable {
    /// Succeeds when the member ends the call with status OK; fails with any
    /// other status, the connection's loss, or the error the call was
    /// cancelled with.
    var ended: EventLoopFuture<Void> { end.futureResult }

    private let loop: any EventLoop
    private let end: EventLoopPromise<Void>
    private let state: NIOLoopBoundBox<State>

    private enum State {
        /// Waiting for the connection.
        case opening
        case open(GRPCCallMultiplexer, UInt32)
        /// Ended before it opened, or after.
        case ended
    }

    init(loop: any EventLoop) {
        self.loop = loop
        end = loop.makePromise()
        state = .makeBoxSendingValue(.opening, eventLoop: loop)
    }

    /// Sends one more request on the call, once it is open; none after it
    /// ended. A request that cannot be serialized ends the call with that error.
    func send(_ request: some SwiftProtobuf.Message) {
        let message: [UInt8]
        do {
            message = try request.serializedBytes()
        } catch {
            cancel(with: error)
            return
        }
        loop.execute {
            if case .open(let calls, let streamID) = self.state.value { calls.send(message, on: streamID) }
        }
    }

    /// Ends the call from this side, from any thread: ``ended`` fails with `error`.
    func cancel(with error: any Error) {
        loop.execute {
            switch self.state.value {
            case .opening:
                self.state.value = .ended
                self.end.fail(error)
            case .open(let calls, let streamID):
                calls.cancel(streamID, with: error)
            case .ended:
                break
            }
        }
    }

    /// Starts the call on the connection `connection` gave, unless it was
    /// cancelled meanwhile (on ``loop``).
    func open(
        on connection: Result<NIOLoopBound<GRPCCallMultiplexer>, any Error>, headers: HPACKHeaders, message: [UInt8],
        onMessage: @escaping @Sendable (ByteBuffer) throws -> Void
    ) {
        guard case .opening = state.value else { return }
        let calls: GRPCCallMultiplexer
        switch connection {
        case .success(let ready):
            calls = ready.value
        case .failure(let error):
            state.value = .ended
            end.fail(error)
            return
        }
        guard let (streamID, ended) = calls.startStream(headers: headers, message: message, onMessage: onMessage) else {
            state.value = .ended
            end.fail(GRPCCallMultiplexer.neverSent)
            return
        }
        state.value = .open(calls, streamID)
        ended.assumeIsolated().whenComplete { result in
            self.state.value = .ended
            self.end.completeWith(result.map { _ in })
        }
    }
}
