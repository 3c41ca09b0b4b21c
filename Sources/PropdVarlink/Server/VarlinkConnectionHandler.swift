import Logging
import NIOCore
import PropdEpoll
import PropdJSON

/// Dispatches the calls of one connection and sends their replies in call order.
///
/// The connection's only handler: it splits the bytes it reads into frames
/// itself (``VarlinkFrameSplitter``) and writes its replies' bytes itself
/// (``VarlinkWriteCoalescer``), so a call and its reply cross no other
/// handler of the pipeline.
///
/// Calls run concurrently (pipelining) but replies leave in order: a reply
/// that is ready early waits in its slot. A call with `more` waits until
/// every earlier call is answered, and calls after a streaming call wait
/// until it ends: Varlink answers a connection's calls in order, so a stream
/// owns the connection while it lasts. Replies written during a read burst
/// are flushed once at its end; replies completed later are flushed once
/// when the loop's mailbox round that completed them ends (a delivery from
/// another thread, a tick's commit), otherwise in a task of their own.
///
/// On an ``EpollStreamChannel`` it attaches to the channel
/// (``EpollDirectHandler``): its reads come from the channel and its writes
/// go to it as plain calls, crossing no pipeline.
final class VarlinkConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Something received, in order.
    private enum Incoming {
        case call(VarlinkCall)
        /// Read straight from its frame by its method's direct decoder.
        case direct(VarlinkDirectCall)
        /// Answered without dispatch: an error reply (nil: none), and whether
        /// the connection closes after it.
        case rejected(VarlinkCallError?, closeAfter: Bool)

        /// A refusal needs no room: it only says why, and may close.
        var isRejection: Bool {
            if case .rejected = self { true } else { false }
        }
    }

    /// One call between its arrival and the sending of its reply.
    private enum Slot {
        case running(method: String, oneway: Bool)
        case answered(VarlinkOutboundMessage?, closeAfter: Bool)
        case streaming(VarlinkReplyStream, oneway: Bool)
    }

    private let registry: VarlinkRegistry
    /// The method of the last call decoded straight from its frame.
    private var recentDirectMethod: VarlinkDirectMethod?
    private let configuration: VarlinkServerConfiguration
    private let makeConnection: (ChannelHandlerContext) -> VarlinkConnectionContext
    private var connection: VarlinkConnectionContext?
    private var context: ChannelHandlerContext?
    /// The channel, while the handler is attached to it: reads, writes and
    /// flushes go to it directly rather than through `context`.
    private var socket: EpollStreamChannel?
    /// Where outbound buffers come from: NIO's default, as every channel's
    /// here (asked of the channel, it is a trip through the pipeline per write).
    private let allocator = ByteBufferAllocator()

    /// The bytes read and not yet split into frames: an incomplete message.
    private var inbound: ByteBuffer?
    private var splitter: VarlinkFrameSplitter
    /// While the frames of a read are dispatched: a read arriving meanwhile
    /// only adds its bytes, taken in order by the dispatch under way.
    private var splitting = false
    private var output = VarlinkWriteCoalescer()

    private var slots = CircularBuffer<Slot>(initialCapacity: 16)
    /// Sequence number of `slots.first`.
    private var firstSequence = 0
    private var waiting = CircularBuffer<Incoming>()

    private var phase = ConnectionPhase.reading
    private var reads = ReadGate.open
    private var outputFlush = OutputFlush.flushed
    private var drainPass = DrainPass.idle
    /// Between a `channelRead` and its `channelReadComplete`: replies wait
    /// for the burst's end to be flushed together.
    private var inReadBurst = false

    /// The live stream: it owns the connection while it lasts, so it is
    /// always the first slot (it starts only when every earlier call is answered).
    private var liveStream: VarlinkReplyStream? {
        if case .streaming(let stream, _)? = slots.first { stream } else { nil }
    }

    /// Incomplete-message bytes this connection holds from `partialBudget`.
    private var partialBytes = 0
    private let partialBudget: VarlinkPartialMessageBudget
    /// When the incomplete message must be complete, while there is one.
    private var messageDeadline: Scheduled<Void>?

    init(
        registry: VarlinkRegistry,
        configuration: VarlinkServerConfiguration,
        partialBudget: VarlinkPartialMessageBudget? = nil,
        makeConnection: @escaping (ChannelHandlerContext) -> VarlinkConnectionContext
    ) {
        self.registry = registry
        self.configuration = configuration
        self.partialBudget = partialBudget ?? VarlinkPartialMessageBudget(limit: configuration.maximumPartialMessageBytes)
        self.makeConnection = makeConnection
        splitter = VarlinkFrameSplitter(maximumMessageSize: configuration.maximumMessageSize)
    }

    private var loopBound: NIOLoopBound<VarlinkConnectionHandler> {
        // Only touched on the event loop: handlerAdded set `context`.
        NIOLoopBound(self, eventLoop: context!.eventLoop)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let connection = makeConnection(context)
        self.connection = connection
        connection.mailbox.connectionOpened()
        if let channel = context.channel as? EpollStreamChannel {
            channel.attach(self)
            socket = channel
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection?.mailbox.connectionClosed()
        socket?.detach()
        socket = nil
        endEverything()
        output.discard()
        self.context = nil
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytesRead(unwrapInboundIn(data), context: context)
    }

    private func bytesRead(_ read: ByteBuffer, context: ChannelHandlerContext) {
        inReadBurst = true
        guard phase.takesCalls else { return }
        guard !splitting else {
            // Read while a call was starting (a pipeline's re-entrant
            // event): split by the pass under way, after what it holds.
            var bytes = read
            if inbound == nil { inbound = bytes } else { inbound?.writeBuffer(&bytes) }
            return
        }
        splitting = true
        defer { splitting = false }
        // Split in a local buffer, `inbound` holding only what a read leaves
        // over: a read of whole messages, the usual one, is never stored.
        var buffer: ByteBuffer
        if var held = inbound.take() {
            var bytes = read
            held.writeBuffer(&bytes)
            buffer = held
        } else {
            buffer = read
        }
        while phase.takesCalls {
            let frame: ByteBuffer?
            do {
                frame = try splitter.nextFrame(&buffer)
            } catch {
                inbound = nil
                reject(violation: error)
                flushIfNeeded()
                return
            }
            guard let frame else { break }
            // A completed message holds nothing any more: its deadline
            // ends here, and a next one already begun is timed from its own start.
            partialMessage(0, context)
            receive(frame: frame)
            if var more = inbound.take() { buffer.writeBuffer(&more) }
        }
        guard phase.takesCalls else { return }
        let held = buffer.readableBytes
        if held > 0, held < buffer.capacity / 4 {
            // The start of a message, at the end of a read: kept in a buffer
            // of its own size, so that the loop's read buffer, which it
            // shares, is reused for the next read rather than held (64 KiB).
            var kept = allocator.buffer(capacity: held)
            kept.writeImmutableBuffer(buffer)
            inbound = kept
        } else if held > 0 {
            inbound = buffer
        }
        partialMessage(held, context)
    }

    /// One frame, in order: decoded and started, or queued behind earlier calls.
    private func receive(frame: ByteBuffer) {
        if let direct = VarlinkDirectCall.decode(
            frame, registry: registry, recent: &recentDirectMethod, maximumDepth: configuration.maximumNestingDepth)
        {
            receive(.direct(direct))
            return
        }
        let message: [String: JSONValue]
        do {
            message = try VarlinkWireFormat.parseMessage(frame, maximumDepth: configuration.maximumNestingDepth)
        } catch .malformedJSON(let error) where error.reason == .numberOutOfRange {
            // Well-framed and well-formed, only not representable: the call
            // is refused, the stream goes on.
            receive(.rejected(.invalidParameter("parameters"), closeAfter: false))
            return
        } catch {
            reject(violation: error)
            return
        }
        do {
            receive(.call(try VarlinkCall(message: message)))
        } catch {
            let oneway = message["oneway"] == .bool(true)
            receive(.rejected(oneway ? nil : .invalidParameter(error.member), closeAfter: false))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readBurstEnded()
        context.fireChannelReadComplete()
    }

    private func readBurstEnded() {
        inReadBurst = false
        flushIfNeeded()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection?.logger.debug("varlink connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if phase.takesCalls, let held = inbound?.readableBytes, held > 0 {
            connection?.logger.debug(
                "varlink connection error",
                metadata: ["error": "\(VarlinkProtocolViolation.truncatedMessage(bytes: held))"])
        }
        inbound = nil
        endEverything()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = isWritable
        liveStream?.writabilityChanged(writable)
        // Calls held back while replies were piling up may start now.
        if writable, !waiting.isEmpty { drain() }
        if writable, case .owedUntilWritable = reads {
            reads = .open
            passRead()
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        phase.quiesce()
        drain()
    }

    // MARK: Outbound

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if output.hasPending {
            writePending(context)
            flush(context)
        }
        context.close(mode: mode, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        readRequested()
    }

    private func readRequested() {
        // A client that sends calls without reading replies must not grow
        // the outbound buffer forever: no more calls until it reads.
        switch reads {
        case .held:
            reads = .held(owed: true)
        case .open, .owedUntilWritable:
            if isWritable {
                reads = .open
                passRead()
            } else {
                reads = .owedUntilWritable
            }
        }
    }

    /// Lets a read through to the channel.
    private func passRead() {
        if let socket { socket.read0() } else { context?.read() }
    }

    private var isWritable: Bool {
        if let socket { socket.isWritable } else { context?.channel.isWritable ?? false }
    }

    // MARK: Ordering

    private func reject(violation: VarlinkProtocolViolation) {
        connection?.logger.info(
            "varlink protocol violation, closing connection", metadata: ["reason": "\(violation)"])
        receive(.rejected(configuration.protocolViolationReply(violation), closeAfter: true))
        phase.refuse()
    }

    private func receive(_ item: Incoming) {
        if !waiting.isEmpty || !canStart(item) {
            waiting.append(item)
        } else {
            start(item)
        }
        holdReadsIfBacklogged()
    }

    private func canStart(_ item: Incoming) -> Bool {
        if liveStream != nil { return false }
        // Replies not yet written are bounded: by count here, by bytes
        // through the channel's writability (the outbound high-water mark).
        if slots.count >= configuration.maximumStartedCallsPerConnection { return false }
        if context != nil, !isWritable, !item.isRejection { return false }
        if case .call(let call) = item, call.more { return slots.isEmpty }
        // A read of possibly large replies waits until nothing before it
        // runs, so that behind a write the reads are made one at a time.
        if !slots.isEmpty, startsAfterEarlierCalls(item) {
            return !slots.contains { if case .answered = $0 { false } else { true } }
        }
        return true
    }

    private func startsAfterEarlierCalls(_ item: Incoming) -> Bool {
        switch item {
        case .call(let call):
            guard case .success(let method) = registry.resolve(call.method) else { return false }
            return method.startsAfterEarlierCalls
        case .direct(let call):
            return call.startsAfterEarlierCalls
        case .rejected:
            return false
        }
    }

    private func start(_ item: Incoming) {
        let sequence = firstSequence + slots.count
        let call: VarlinkCall
        switch item {
        case .rejected(let error, let closeAfter):
            slots.append(.answered(error.map { .reply(VarlinkReply(error: $0)) }, closeAfter: closeAfter))
            drain()
            return
        case .call(let c):
            call = c
        case .direct(let direct):
            guard let connection else { return }
            // Alone: nothing before it still runs and nothing waits behind it.
            let alone = slots.isEmpty && waiting.isEmpty
            slots.append(.running(method: direct.name, oneway: direct.oneway))
            direct.start(
                connection,
                VarlinkResponder(connection: loopBound, mailbox: connection.mailbox, sequence: sequence, alone: alone))
            return
        }
        let method: VarlinkMethod
        switch registry.resolve(call.method) {
        case .success(let found): method = found
        case .failure(let error):
            answer(call, with: error)
            return
        }
        if call.upgrade {
            answer(call, with: .invalidParameter("upgrade"))
            return
        }
        if method.requiresMore, !call.more {
            answer(call, with: .expectedMore)
            return
        }
        guard let connection else { return }
        switch method.body {
        case .synchronous(let body):
            let answer: VarlinkAnswer
            do { answer = .parameters(try body(call, connection)) } catch { answer = .failure(error) }
            slots.append(.answered(call.oneway ? nil : reply(answer, method: call.method), closeAfter: false))
            drain()
        case .responding(let body):
            // Alone: nothing before it still runs and nothing waits behind it.
            let alone = slots.isEmpty && waiting.isEmpty
            slots.append(.running(method: call.method, oneway: call.oneway))
            body(
                call, connection,
                VarlinkResponder(connection: loopBound, mailbox: connection.mailbox, sequence: sequence, alone: alone))
        case .streaming(let body):
            guard let channel = context?.channel else { return }
            let stream = VarlinkReplyStream(connection: loopBound, channel: channel, mailbox: connection.mailbox, sequence: sequence)
            slots.append(.streaming(stream, oneway: call.oneway))
            body(call, connection, stream)
        }
    }

    private func answer(_ call: VarlinkCall, with error: VarlinkCallError) {
        slots.append(.answered(call.oneway ? nil : .reply(VarlinkReply(error: error)), closeAfter: false))
        drain()
    }

    private func reply(_ answer: VarlinkAnswer, method: String) -> VarlinkOutboundMessage {
        switch answer {
        case .parameters(let parameters):
            return .reply(VarlinkReply(parameters: parameters))
        case .encodable(let parameters):
            return .encodableReply(parameters)
        case .failure(let error as VarlinkCallError):
            return .reply(VarlinkReply(error: error))
        case .failure(let error):
            connection?.logger.error(
                "varlink handler failed unexpectedly", metadata: ["method": "\(method)", "error": "\(error)"])
            return .reply(VarlinkReply(error: configuration.unexpectedErrorReply(error)))
        }
    }

    /// A responder's answer, on the event loop.
    func complete(sequence: Int, with answer: VarlinkAnswer) {
        let index = sequence - firstSequence
        guard index >= 0, index < slots.count, case .running(let method, let oneway) = slots[offset: index] else {
            return  // answered twice, or the connection is gone
        }
        if index == 0, !oneway, case .encodable(let parameters) = answer {
            // First in line (a pipelining client's answers come in order):
            // written at once, with no message to keep in the slot.
            slots[offset: 0] = .answered(nil, closeAfter: false)
            emit(reply: parameters)
            drain()
            return
        }
        slots[offset: index] = .answered(oneway ? nil : reply(answer, method: method), closeAfter: false)
        if index == 0 { drain() }
    }

    /// A stream's replies, on the event loop. A live stream is always the
    /// first slot: it starts only when every earlier call is answered.
    func streamSend(sequence: Int, _ output: VarlinkReplyStream.Output) {
        guard sequence == firstSequence, case .streaming(let stream, let oneway)? = slots.first else { return }
        let final: Bool
        switch output {
        case .messages(let messages, let last):
            if !oneway { for message in messages { emit(message, flushLater: false) } }
            final = last
        case .frames(let frames):
            if !oneway, frames.count == 1, let frame = frames.first {
                write(frame: frame)
            } else if !oneway {
                for frame in frames { emit(.frame(frame), flushLater: false) }
            }
            final = false
        }
        // One send is one batch of the stream (a subscriber's pending
        // events): out now, rather than after every other task of the tick
        // (a publish wakes many streams; the first need not wait for the last).
        if !oneway, !inReadBurst { flushIfNeeded() }
        if final {
            slots[offset: 0] = .answered(nil, closeAfter: false)
            stream.terminate()
            drain()
        }
    }

    /// Sends one continuing reply framed by its producer on the stream of
    /// call `sequence`, as `streamSend(sequence:_:)` sends a batch of one
    /// (a subscriber's event, the commonest send), without the batch.
    func streamSend(sequence: Int, frame: [UInt8]) {
        guard sequence == firstSequence, case .streaming(_, oneway: false)? = slots.first else { return }
        write(frame: frame)
        if !inReadBurst { flushIfNeeded() }
    }

    /// A stream's single frame: straight to the socket
    /// (``EpollStreamChannel/sendNow(_:)``) when nothing of the connection's
    /// waits before it, outside a read burst (which flushes at its end);
    /// otherwise encoded behind what waits.
    private func write(frame: [UInt8]) {
        if let socket, phase.writes, !inReadBurst, !output.hasPending, !outputFlush.hasUnflushedWrites {
            socket.sendNow(frame)
        } else {
            emit(.frame(frame), flushLater: false)
        }
    }

    /// Sends answered replies from the front, then starts calls that were
    /// waiting, until nothing moves. Re-entrant calls (a synchronous handler
    /// answering inside `start`) just ask for another pass.
    private func drain() {
        guard case .idle = drainPass else {
            drainPass = .rerunRequested
            return
        }
        defer { drainPass = .idle }
        repeat {
            drainPass = .running
            while case .answered(let message, let closeAfter)? = slots.first {
                slots.removeFirst()
                firstSequence += 1
                if let message { emit(message) }
                if closeAfter {
                    closeAfterWrites()
                    return
                }
            }
            while let next = waiting.first, canStart(next) {
                waiting.removeFirst()
                start(next)
                // A call answered at once (a read) is written before the
                // next starts: a large reply turns the connection unwritable,
                // which holds the next call back, so the replies held for a
                // slow reader stay within the outbound high-water mark
                // instead of a full window of started calls.
                if case .answered? = slots.first {
                    drainPass = .rerunRequested
                    break
                }
            }
        } while drainPass == .rerunRequested
        if case .quiescing = phase, (slots.isEmpty && waiting.isEmpty) || liveStream != nil {
            closeAfterWrites()
            return
        }
        releaseReadsIfDrained()
    }

    // MARK: Writing and closing

    /// Writes `message`; unless the caller flushes itself (`flushLater`
    /// false), the flush comes at the end of the read burst or in a task.
    private func emit(_ message: VarlinkOutboundMessage, flushLater: Bool = true) {
        guard phase.writes, let context else { return }
        if output.append(message, promise: nil, allocator: allocator) { writePending(context) }
        wrote(flushLater: flushLater)
    }

    /// Writes a reply with `parameters`, as ``emit(_:flushLater:)`` writes
    /// an `encodableReply` message.
    private func emit(reply parameters: any JSONObjectEncodable) {
        guard phase.writes, let context else { return }
        if output.appendReply(parameters, allocator: allocator) { writePending(context) }
        wrote(flushLater: true)
    }

    private func wrote(flushLater: Bool) {
        outputFlush.wrote()
        if flushLater, !inReadBurst { scheduleFlush() }
    }

    private func scheduleFlush() {
        guard !outputFlush.flushQueued, let context else { return }
        outputFlush = .flushQueued(written: outputFlush.hasUnflushedWrites)
        if let connection, connection.mailbox.flushAtRoundEnd(self) { return }
        let handler = loopBound
        context.eventLoop.execute {
            handler.value.flushQueuedReplies()
        }
    }

    /// The flush that ``scheduleFlush()`` queued: in its own task, or at
    /// the end of the mailbox's flush round that took it.
    func flushQueuedReplies() {
        outputFlush.flushTaskRan()
        flushIfNeeded()
    }

    private func flushIfNeeded() {
        guard outputFlush.hasUnflushedWrites, phase.writes, let context else { return }
        outputFlush.flushed()
        writePending(context)
        flush(context)
    }

    /// Hands the bytes encoded so far to the channel (unflushed).
    private func writePending(_ context: ChannelHandlerContext) {
        guard let (bytes, promise) = output.take() else { return }
        if let socket {
            socket.writeDirectly(bytes, promise: promise)
        } else {
            context.write(wrapOutboundOut(bytes), promise: promise)
        }
    }

    private func flush(_ context: ChannelHandlerContext) {
        if let socket { socket.flush0() } else { context.flush() }
    }

    /// Closes once everything written so far has reached the socket, so the
    /// last replies (a violation's explanation) are not dropped.
    private func closeAfterWrites() {
        guard phase.writes, let context else { return }
        let wasQuiescing = phase == .quiescing
        phase = .closed
        reads.hold()
        if wasQuiescing, !isWritable {
            // Stopping, and the peer reads nothing (a stalled subscriber):
            // what it has not read it can ask for again with `since`; the
            // daemon does not wait for it.
            context.close(promise: nil)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        _ = output.append(.barrier, promise: written, allocator: allocator)
        writePending(context)
        flush(context)
        outputFlush.flushed()
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }

    /// The connection is gone: streams end, running calls' answers will be dropped.
    private func endEverything() {
        messageDeadline?.cancel()
        messageDeadline = nil
        partialBudget.release(partialBytes)
        partialBytes = 0
        phase = .closed
        let ending = slots
        slots.removeAll()
        waiting.removeAll()
        firstSequence += ending.count
        for case .streaming(let stream, _) in ending { stream.terminate() }
    }

    // MARK: Read backpressure

    /// Reads stop while calls wait to start (each waiting call is a parsed
    /// message, up to the message size) or too many are pending.
    private func holdReadsIfBacklogged() {
        if slots.count + waiting.count >= configuration.maximumPendingCallsPerConnection
            || waiting.count >= Self.waitingCallsBeforeHold
        {
            reads.hold()
        }
    }

    /// Calls that may wait to start before the connection stops being read:
    /// enough that a pipelining client's next calls are already parsed.
    private static let waitingCallsBeforeHold = 16

    private func releaseReadsIfDrained() {
        guard case .held(let owed) = reads, phase.writes, waiting.count < Self.waitingCallsBeforeHold / 2,
            slots.count + waiting.count < configuration.maximumPendingCallsPerConnection / 2
        else { return }
        guard owed, context != nil else {
            reads = owed ? .owedUntilWritable : .open
            return
        }
        if isWritable {
            reads = .open
            passRead()
        } else {
            reads = .owedUntilWritable
        }
    }
}

// MARK: Incomplete messages

extension VarlinkConnectionHandler {
    /// The decoder now holds `bytes` of an incomplete message: reserve them
    /// from the server-wide budget (or close), and time the message.
    fileprivate func partialMessage(_ bytes: Int, _ context: ChannelHandlerContext) {
        guard phase.takesCalls else { return }
        let more = bytes - partialBytes
        if more > 0, !partialBudget.reserve(more) {
            reject(violation: .partialMessagesOverLimit(limit: partialBudget.limit))
            flushIfNeeded()
            return
        }
        if more < 0 { partialBudget.release(-more) }
        partialBytes = bytes
        if bytes == 0 {
            messageDeadline?.cancel()
            messageDeadline = nil
        } else if messageDeadline == nil {
            armMessageDeadline(context)
        }
    }

    private func armMessageDeadline(_ context: ChannelHandlerContext) {
        let handler = loopBound
        let timeout = configuration.messageTimeout
        messageDeadline = context.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            handler.value.messageDeadlinePassed()
        }
    }

    private func messageDeadlinePassed() {
        messageDeadline = nil
        guard partialBytes > 0, phase.takesCalls, let context else { return }
        // The server held this connection's reads: the client was not slow.
        if reads != .open {
            armMessageDeadline(context)
            return
        }
        reject(violation: .messageTimeout(seconds: Int(configuration.messageTimeout.components.seconds)))
        flushIfNeeded()
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int64.max : whole + attoseconds / 1_000_000_000
    }
}

// MARK: Attached to the channel

extension VarlinkConnectionHandler: EpollDirectHandler {
    func channelReadDirectly(_ bytes: ByteBuffer) {
        guard let context else { return }
        bytesRead(bytes, context: context)
    }

    func channelReadCompleteDirectly() {
        readBurstEnded()
    }

    func readRequestedDirectly() {
        readRequested()
    }
}
