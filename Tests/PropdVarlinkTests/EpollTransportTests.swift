import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PropdEpoll
@testable import PropdVarlink
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The transport the Varlink server runs on: SwiftNIO's loop and channel
/// contracts, kept on epoll, over real Unix sockets.
@Suite struct EpollTransportTests {
    // MARK: The loop

    @Test func tasksFromOtherThreadsRunOnTheLoopInOrder() async throws {
        let group = try EpollEventLoopGroup(loops: 1, name: "test-loop")
        let loop = group.nextLoop()
        #expect(!loop.inEventLoop)
        let seen = Mutex<[Int]>([])
        let futures = (0..<100).map { index in
            loop.submit {
                #expect(loop.inEventLoop)
                seen.withLock { $0.append(index) }
            }
        }
        for future in futures { try await future.get() }
        #expect(seen.withLock { $0 } == Array(0..<100))
        await group.stop()
    }

    @Test func aTimerRunsAtItsDeadlineAndACancelledOneNever() async throws {
        let group = try EpollEventLoopGroup(loops: 1, name: "test-loop")
        let loop = group.nextLoop()
        let start = NIODeadline.now()
        let cancelled = loop.scheduleTask(in: .milliseconds(20)) { Issue.record("a cancelled timer ran") }
        let fired = loop.scheduleTask(in: .milliseconds(50)) { NIODeadline.now() }
        cancelled.cancel()
        await #expect(throws: EventLoopError.cancelled) { try await cancelled.futureResult.get() }
        let firedAt = try await withTimeout { try await fired.futureResult.get() }
        #expect(firedAt - start >= .milliseconds(50))
        // The loop still runs tasks once its timers are gone.
        try await loop.submit {}.get()
        await group.stop()
    }

    @Test func aTimerStillPendingWhenTheLoopStopsFailsItsWaiter() async throws {
        let group = try EpollEventLoopGroup(loops: 1, name: "test-loop")
        let pending = group.nextLoop().scheduleTask(in: .hours(1)) {}
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        pending.futureResult.whenComplete { result in outcome.withLock { $0 = result } }
        await group.stop()
        #expect(throws: EventLoopError.shutdown) { try outcome.withLock { $0 }?.get() }
        #expect(outcome.withLock { $0 } != nil)
    }

    @Test func aShutdownAfterTheLoopsEndedIsAnsweredAtOnce() async throws {
        let group = try EpollEventLoopGroup(loops: 2, name: "test-loop")
        try await group.shutdownGracefully()
        try await withTimeout { try await group.shutdownGracefully() }
    }

    // MARK: Channels

    @Test func aConnectionEchoesWhatItReadsAndClosesWhenThePeerLeaves() async throws {
        let server = try EchoServer()
        let client = try RawSocket(path: server.path)
        let message = String(repeating: "0123456789", count: 20_000)
        client.send(message)
        #expect(client.receive(count: message.utf8.count) == Array(message.utf8))
        let credentials = try await server.next { if case .active = $0 { true } else { false } }
        #expect(credentials == .active(uid: getuid(), pid: getpid()))
        client.shutdown()
        _ = try await server.next { $0 == .inactive }
        _ = try await server.next { $0 == .removed }
        await server.stop()
    }

    @Test func aConnectionStillOpenWhenItsLoopsStopIsClosed() async throws {
        let server = try EchoServer()
        let client = try RawSocket(path: server.path)
        _ = try await server.next { if case .active = $0 { true } else { false } }
        await server.group.stop()
        _ = try await server.next { $0 == .inactive }
        _ = try await server.next { $0 == .removed }
        #expect(client.isClosedByPeer())
        // The listener is closed too: nobody is accepting on its socket.
        #expect(throws: POSIXError(.ECONNREFUSED)) { try RawSocket(path: server.path) }
        unlink(server.path)
    }

    @Test func aPeerThatDoesNotReadMakesTheChannelUnwritableUntilItReads() async throws {
        // More than the socket's buffers and the high-water mark together,
        // written to the client as it connects.
        let size = 4 * 1024 * 1024
        let server = try EchoServer(waterMark: .init(low: 4 * 1024, high: 64 * 1024), greeting: size)
        let client = try RawSocket(path: server.path)
        _ = try await server.next { $0 == .writable(false) }
        let received = client.receive(count: size)
        #expect(received.count == size && received.allSatisfy { $0 == UInt8(ascii: "g") })
        _ = try await server.next { $0 == .writable(true) }
        await server.stop()
    }

    @Test func bytesSentAtOnceThatTheSocketDoesNotTakeFollowInOrderOnceThePeerReads() async throws {
        // Chunks sent with `sendNow` as the client connects, each its own
        // byte: more than the socket's buffers and the high-water mark
        // together, so most are queued and the channel turns unwritable.
        let chunks = 64
        let chunkSize = 64 * 1024
        let server = try EchoServer(
            waterMark: .init(low: 4 * 1024, high: 64 * 1024), greeting: chunks * chunkSize, greetingSentNow: true)
        let client = try RawSocket(path: server.path)
        _ = try await server.next { $0 == .writable(false) }
        let received = client.receive(count: chunks * chunkSize)
        #expect(received.count == chunks * chunkSize)
        let expected = (0..<chunks).flatMap { [UInt8](repeating: UInt8($0), count: chunkSize) }
        #expect(received == expected)
        _ = try await server.next { $0 == .writable(true) }
        await server.stop()
    }

    @Test func bytesSentAtOnceFollowWritesQueuedBeforeThem() async throws {
        let server = try EchoServer(autoRead: false)
        let client = try RawSocket(path: server.path)
        let channel = try await server.activeChannel()
        try await channel.eventLoop.submit {
            channel.writeDirectly(ByteBuffer(string: "queued,"), promise: nil)
            channel.sendNow(Array("sent now".utf8))
        }.get()
        #expect(client.receive(count: 15) == Array("queued,sent now".utf8))
        await server.stop()
    }

    @Test func bytesSentAtOnceToAPeerThatIsGoneCloseTheChannel() async throws {
        let server = try EchoServer(autoRead: false)
        let client = try RawSocket(path: server.path)
        let channel = try await server.activeChannel()
        client.shutdown()
        let stillActive = try await channel.eventLoop.submit {
            channel.sendNow(Array("too late".utf8))
            return channel.isActive
        }.get()
        #expect(!stillActive)
        _ = try await server.next { $0 == .inactive }
        await server.stop()
    }

    @Test func heldReadsLeaveBytesUnreadUntilAskedFor() async throws {
        let server = try EchoServer(autoRead: false)
        let client = try RawSocket(path: server.path)
        client.send("held")
        _ = try await server.next { if case .active = $0 { true } else { false } }
        let channel = try #require(server.channels.withLockedValue { $0.first })
        // Nothing was asked for: the loop must not read.
        try await channel.eventLoop.submit {}.get()
        #expect(server.read.withLockedValue { $0 } == 0)
        channel.read()
        #expect(client.receive(count: 4) == Array("held".utf8))
        await server.stop()
    }

    @Test func anAttachedHandlerReadsAndWritesAsCallsOutsideThePipeline() async throws {
        let server = try EchoServer(attached: .passingReads)
        let client = try RawSocket(path: server.path)
        // Larger than one read and than the socket's buffer: many reads,
        // and writes that wait for the socket.
        let message = String(repeating: "0123456789", count: 20_000)
        client.send(message)
        #expect(client.receive(count: message.utf8.count) == Array(message.utf8))
        #expect(server.read.withLockedValue { $0 } == message.utf8.count)
        #expect(server.readThroughPipeline.withLockedValue { $0 } == 0)
        // The rest of the channel's life still runs through the pipeline.
        client.shutdown()
        _ = try await server.next { $0 == .inactive }
        _ = try await server.next { $0 == .removed }
        await server.stop()
    }

    @Test func anAttachedHandlerThatLetsNoReadThroughLeavesBytesUnread() async throws {
        let server = try EchoServer(attached: .holdingReads)
        let client = try RawSocket(path: server.path)
        client.send("one")
        #expect(client.receive(count: 3) == Array("one".utf8))
        client.send("two")
        let channel = try #require(server.channels.withLockedValue { $0.first })
        try await channel.eventLoop.submit {}.get()
        #expect(server.read.withLockedValue { $0 } == 3)
        channel.read()
        #expect(client.receive(count: 3) == Array("two".utf8))
        #expect(server.readThroughPipeline.withLockedValue { $0 } == 0)
        await server.stop()
    }

    @Test func aPeerGoneWhileReadsAreHeldClosesTheChannel() async throws {
        let server = try EchoServer(autoRead: false)
        let client = try RawSocket(path: server.path)
        _ = try await server.next { if case .active = $0 { true } else { false } }
        client.send("unread")
        client.shutdown()
        _ = try await server.next { $0 == .inactive }
        await server.stop()
    }
}

/// What ``EventLog`` saw, in order.
private enum ChannelEvent: Equatable, Sendable {
    case active(uid: UInt32, pid: Int32)
    case writable(Bool)
    case inactive
    case removed
}

/// A listener on its own group whose connections echo what they read.
private final class EchoServer: Sendable {
    let path = temporarySocketPath()
    let group: EpollEventLoopGroup
    let listener: EpollListener
    let events: AsyncStream<ChannelEvent>
    let channels = NIOLockedValueBox<[any Channel]>([])
    let read = NIOLockedValueBox(0)
    /// Of `read`, the bytes that came as pipeline events.
    let readThroughPipeline = NIOLockedValueBox(0)

    init(
        waterMark: ChannelOptions.Types.WriteBufferWaterMark = .init(low: 32 * 1024, high: 64 * 1024),
        autoRead: Bool = true, greeting: Int = 0, greetingSentNow: Bool = false,
        attached: EchoHandler.Attachment? = nil
    ) throws {
        group = try EpollEventLoopGroup(loops: 2, name: "test-loop")
        let (events, sink) = AsyncStream.makeStream(of: ChannelEvent.self)
        self.events = events
        let fd = try EpollListener.bind(unixDomainSocketPath: path)
        let channels = self.channels
        let read = self.read
        let readThroughPipeline = self.readThroughPipeline
        let listening = EpollListener.listen(on: fd, group: group, backlog: 16, waterMark: waterMark) { channel in
            channels.withLockedValue { $0.append(channel) }
            return channel.eventLoop.makeCompletedFuture {
                try channel.syncOptions?.setOption(ChannelOptions.autoRead, value: autoRead)
                try channel.pipeline.syncOperations.addHandler(
                    EchoHandler(
                        sink: sink, read: read, readThroughPipeline: readThroughPipeline, greeting: greeting,
                        greetingSentNow: greetingSentNow, attached: attached))
            }
        }
        listener = try listening.wait()
    }

    /// The first event from now on that `matches`, within a deadline.
    func next(_ matches: @escaping @Sendable (ChannelEvent) -> Bool) async throws -> ChannelEvent? {
        let events = self.events
        return try await withTimeout { await events.first(where: matches) }
    }

    /// The first connection's channel, once it is active.
    func activeChannel() async throws -> EpollStreamChannel {
        _ = try await next { if case .active = $0 { true } else { false } }
        return try #require(channels.withLockedValue { $0.first } as? EpollStreamChannel)
    }

    func stop() async {
        listener.close()
        try? await listener.closeFuture.get()
        for channel in channels.withLockedValue({ $0 }) { try? await channel.close() }
        await group.stop()
        unlink(path)
    }
}

private final class EchoHandler: ChannelDuplexHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let sink: AsyncStream<ChannelEvent>.Continuation
    let read: NIOLockedValueBox<Int>
    let readThroughPipeline: NIOLockedValueBox<Int>
    /// Bytes written to the peer as soon as it is connected.
    let greeting: Int
    /// Whether the greeting is sent with `sendNow`, in 64 KiB chunks of
    /// bytes 0, 1, 2…, rather than written and flushed as `g`s.
    let greetingSentNow: Bool
    /// Whether the handler attaches to its channel (`EpollDirectHandler`), and how.
    let attached: Attachment?
    private let channel = NIOLockedValueBox<EpollStreamChannel?>(nil)

    enum Attachment {
        /// Lets every read the channel asks for through.
        case passingReads
        /// Lets none through after the first burst.
        case holdingReads
    }

    init(
        sink: AsyncStream<ChannelEvent>.Continuation, read: NIOLockedValueBox<Int>,
        readThroughPipeline: NIOLockedValueBox<Int>, greeting: Int, greetingSentNow: Bool, attached: Attachment?
    ) {
        self.sink = sink
        self.read = read
        self.readThroughPipeline = readThroughPipeline
        self.greeting = greeting
        self.greetingSentNow = greetingSentNow
        self.attached = attached
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard attached != nil, let channel = context.channel as? EpollStreamChannel else { return }
        channel.attach(self)
        self.channel.withLockedValue { $0 = channel }
    }

    func channelActive(context: ChannelHandlerContext) {
        // The server's own reading of SO_PEERCRED, completed at once on the loop.
        VarlinkPeerCredentials.read(from: context.channel).whenSuccess { [sink] peer in
            if let peer { sink.yield(.active(uid: peer.uid, pid: peer.pid)) }
        }
        if greetingSentNow, let channel = context.channel as? EpollStreamChannel {
            for chunk in 0..<greeting / (64 * 1024) {
                channel.sendNow([UInt8](repeating: UInt8(truncatingIfNeeded: chunk), count: 64 * 1024))
            }
            return context.fireChannelActive()
        }
        var left = greeting
        while left > 0 {
            let chunk = min(left, 64 * 1024)
            context.write(wrapOutboundOut(ByteBuffer(repeating: UInt8(ascii: "g"), count: chunk)), promise: nil)
            left -= chunk
        }
        if greeting > 0 { context.flush() }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        read.withLockedValue { $0 += unwrapInboundIn(data).readableBytes }
        readThroughPipeline.withLockedValue { $0 += unwrapInboundIn(data).readableBytes }
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        sink.yield(.writable(context.channel.isWritable))
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.yield(.inactive)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        channel.withLockedValue { $0?.detach() }
        sink.yield(.removed)
    }
}

extension EchoHandler: EpollDirectHandler {
    func channelReadDirectly(_ bytes: ByteBuffer) {
        read.withLockedValue { $0 += bytes.readableBytes }
        channel.withLockedValue { $0?.writeDirectly(bytes, promise: nil) }
    }

    func channelReadCompleteDirectly() {
        channel.withLockedValue { $0?.flush0() }
    }

    func readRequestedDirectly() {
        guard attached == .passingReads else { return }
        channel.withLockedValue { $0?.read0() }
    }
}
