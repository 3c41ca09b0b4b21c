public import NIOCore
public import PropdJSON
import NIOConcurrencyHelpers

/// The replies of one streaming call (`more: true`), sent from any thread.
///
/// Every reply but the last carries `continues: true`; one of the `finish`
/// methods sends the last. Sends after the end are dropped.
///
/// Backpressure: ``isWritable`` turns false when the connection's outbound
/// buffer is above the server's high-water mark (the client reads slower
/// than the stream produces) and ``onWritabilityChange(_:)`` reports each
/// flip, so a producer can coalesce or end a slow consumer with an error:
///
/// ```swift
/// .streaming("Subscribe") { call, connection, stream in
///     stream.onTermination { hub.remove(id) }
///     hub.add(id) { event in
///         if !stream.isWritable && backlog > limit { stream.finish(throwing: slowConsumer) }
///         else { stream.send(frames: [event.frame]) }
///     }
/// }
/// ```
public final class VarlinkReplyStream: Sendable {
    private let connection: NIOLoopBound<VarlinkConnectionHandler>
    private let channel: any Channel
    /// The connection's event loop; sends made on it skip a thread hop.
    public let eventLoop: any EventLoop
    /// The connection's loop's mailbox: a writer publishing one event to
    /// many streams hands each loop one task, not one per stream.
    public let mailbox: LoopMailbox
    let sequence: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var ended = false
        var onTermination: (@Sendable () -> Void)?
        var onWritabilityChange: (@Sendable (Bool) -> Void)?
    }

    init(connection: NIOLoopBound<VarlinkConnectionHandler>, channel: any Channel, mailbox: LoopMailbox, sequence: Int) {
        self.connection = connection
        self.channel = channel
        self.eventLoop = channel.eventLoop
        self.mailbox = mailbox
        self.sequence = sequence
    }

    /// False while the connection's unsent bytes are above the high-water mark.
    public var isWritable: Bool { channel.isWritable }

    /// Bytes written to the connection but not yet taken by the kernel
    /// (NIO's `bufferedWritableBytes`), for producers that bound by size.
    public func bufferedBytes() async throws -> Int {
        try await channel.getOption(.bufferedWritableBytes).get()
    }

    /// Whether the stream has ended (finished, or its connection closed).
    public var isEnded: Bool { state.withLockedValue { $0.ended } }

    /// Sends one reply with `continues: true`.
    public func send(_ parameters: [String: JSONValue]) {
        deliver(.messages([.reply(VarlinkReply(parameters: parameters, continues: true))], final: false))
    }

    /// Sends replies framed by their producer, each a whole
    /// `{"parameters":{...},"continues":true}` message and its NUL
    /// (``VarlinkWireFormat/continuingReplyFrame(reservingCapacity:_:)``), so
    /// that one event is encoded once for all the streams that send it and
    /// each stream only copies its bytes out; one flush after the last.
    public func send(frames: [[UInt8]]) {
        deliver(.frames(frames))
    }

    /// Sends one reply framed by its producer, as ``send(frames:)`` sends
    /// a batch of one; on the stream's loop, without the array.
    public func send(frame: [UInt8]) {
        if eventLoop.inEventLoop {
            connection.value.streamSend(sequence: sequence, frame: frame)
        } else {
            deliver(.frames([frame]))
        }
    }

    /// Sends the last reply (no `continues`) and ends the stream.
    public func finish(_ parameters: [String: JSONValue] = [:]) {
        deliver(.messages([.reply(VarlinkReply(parameters: parameters))], final: true))
    }

    /// Ends the stream with an error reply.
    public func finish(throwing error: VarlinkCallError) {
        deliver(.messages([.reply(VarlinkReply(error: error))], final: true))
    }

    /// Runs `handler` once when the stream ends, whether finished or because
    /// the connection closed; at once if it has already ended.
    public func onTermination(_ handler: @escaping @Sendable () -> Void) {
        let endedAlready = state.withLockedValue { state in
            if state.ended { return true }
            state.onTermination = handler
            return false
        }
        if endedAlready { handler() }
    }

    /// Runs `handler` on the event loop each time ``isWritable`` changes
    /// while the stream is live.
    public func onWritabilityChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        state.withLockedValue { $0.onWritabilityChange = handler }
    }

    /// What one send hands the connection.
    enum Output: Sendable {
        /// Messages to encode; `final` ends the stream after them.
        case messages([VarlinkOutboundMessage], final: Bool)
        /// Continuing replies framed by their producer.
        case frames([[UInt8]])
    }

    private func deliver(_ output: Output) {
        if eventLoop.inEventLoop {
            // The connection drops what comes after the stream's end itself.
            connection.value.streamSend(sequence: sequence, output)
        } else if !state.withLockedValue({ $0.ended }) {
            let connection = self.connection
            let sequence = self.sequence
            mailbox.post { connection.value.streamSend(sequence: sequence, output) }
        }
    }

    /// Called by the connection on its event loop when the stream can no longer send.
    func terminate() {
        let handler: (@Sendable () -> Void)? = state.withLockedValue { state in
            if state.ended { return nil }
            state.ended = true
            defer { state.onTermination = nil; state.onWritabilityChange = nil }
            return state.onTermination
        }
        handler?()
    }

    func writabilityChanged(_ writable: Bool) {
        let handler = state.withLockedValue { $0.onWritabilityChange }
        handler?(writable)
    }
}
