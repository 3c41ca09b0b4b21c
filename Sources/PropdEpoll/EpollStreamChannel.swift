import CEpoll
public import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An accepted stream socket served by an ``EpollEventLoop``: a SwiftNIO
/// `Channel` whose pipeline is NIO's own, its reads and writes the loop's
/// `read(2)`, `send(2)` and `sendmsg(2)`.
///
/// It keeps NIO's contract for what the pipeline sees: `read()` asks for
/// the next reads (with `autoRead`, after each burst), a burst ends in
/// `channelReadComplete`, writes wait for `flush()`, writability follows the
/// outbound water marks, end of input closes the channel (no half-closure),
/// and the close runs `channelInactive`, then removes the handlers.
public final class EpollStreamChannel: Channel, ChannelCore, @unchecked Sendable {
    // @unchecked: everything but `active`, `writable` (Atomics) and the
    // constants is touched only on `loop` (ChannelCore's calls are made
    // there by the pipeline; `ready` by the loop itself); `_pipeline` is
    // set once, in `init`, before the channel is shared.
    public let loop: EpollEventLoop
    private let fd: Int32
    // Set once, at the end of `init` (a pipeline needs its channel).
    private var _pipeline: ChannelPipeline!
    private let closePromise: EventLoopPromise<Void>
    private let active = Atomic<Bool>(false)
    private let writable = Atomic<Bool>(true)

    private var open = true
    private var autoRead = true
    private var readPending = false
    private var waterMark: ChannelOptions.Types.WriteBufferWaterMark
    /// What the loop watches the descriptor for (once `registered`).
    private var interest: UInt32 = 0
    private var registered = false

    private struct PendingWrite {
        var bytes: ByteBuffer
        let promise: EventLoopPromise<Void>?
    }

    /// The pipeline's only handler, while attached (``attach(_:)``).
    private var direct: (any EpollDirectHandler)?

    private var pending = CircularBuffer<PendingWrite>(initialCapacity: 4)
    /// How many of `pending`, from its front, have been flushed.
    private var flushedCount = 0
    private var pendingBytes = 0

    /// Wraps `fd`, a connected non-blocking stream socket the channel now owns.
    init(fd: Int32, loop: EpollEventLoop, waterMark: ChannelOptions.Types.WriteBufferWaterMark) {
        self.fd = fd
        self.loop = loop
        self.waterMark = waterMark
        closePromise = loop.makePromise(of: Void.self)
        _pipeline = ChannelPipeline(channel: self)
    }

    /// Registers the channel with its loop and starts it: `channelRegistered`,
    /// `channelActive`, then a `read()` if `autoRead`. On the loop.
    func activate() {
        guard open else { return }
        do {
            try loop.register(fd, events: interest, handler: self)
            registered = true
        } catch {
            close0(error: error, mode: .all, promise: nil)
            return
        }
        pipeline.syncOperations.fireChannelRegistered()
        active.store(true, ordering: .relaxed)
        pipeline.syncOperations.fireChannelActive()
        if open, autoRead { pipeline.syncOperations.read() }
    }

    // MARK: Channel

    public var pipeline: ChannelPipeline { _pipeline }

    public var _channelCore: any ChannelCore { self }
    public var eventLoop: any EventLoop { loop }
    public let allocator = ByteBufferAllocator()
    public var closeFuture: EventLoopFuture<Void> { closePromise.futureResult }
    public var localAddress: SocketAddress? { nil }
    public var remoteAddress: SocketAddress? { nil }
    public var parent: (any Channel)? { nil }
    public var isWritable: Bool { writable.load(ordering: .relaxed) }
    public var isActive: Bool { active.load(ordering: .relaxed) }

    public var syncOptions: (any NIOSynchronousChannelOptions)? { SynchronousOptions(channel: self) }

    /// The options set and read at once, on the loop.
    private struct SynchronousOptions: NIOSynchronousChannelOptions {
        let channel: EpollStreamChannel

        func setOption<Option: ChannelOption>(_ option: Option, value: Option.Value) throws {
            channel.loop.preconditionInEventLoop()
            try channel.setOption0(option, value: value)
        }

        func getOption<Option: ChannelOption>(_ option: Option) throws -> Option.Value {
            channel.loop.preconditionInEventLoop()
            return try channel.getOption0(option)
        }
    }

    public func setOption<Option: ChannelOption>(_ option: Option, value: Option.Value) -> EventLoopFuture<Void> {
        if loop.inEventLoop { return loop.makeCompletedFuture { try setOption0(option, value: value) } }
        return loop.submit { try self.setOption0(option, value: value) }
    }

    public func getOption<Option: ChannelOption>(_ option: Option) -> EventLoopFuture<Option.Value> {
        if loop.inEventLoop { return loop.makeCompletedFuture { try getOption0(option) } }
        return loop.submit { try self.getOption0(option) }
    }

    fileprivate func setOption0<Option: ChannelOption>(_ option: Option, value: Option.Value) throws {
        switch value {
        case let on as Bool where option is ChannelOptions.Types.AutoReadOption:
            let wasOn = autoRead
            autoRead = on
            if on, !wasOn, open { read0() }
        case let mark as ChannelOptions.Types.WriteBufferWaterMark
        where option is ChannelOptions.Types.WriteBufferWaterMarkOption:
            waterMark = mark
        case let allowed as Bool where option is ChannelOptions.Types.AllowRemoteHalfClosureOption:
            if allowed { throw ChannelError.operationUnsupported }
        default:
            throw ChannelError.operationUnsupported
        }
    }

    fileprivate func getOption0<Option: ChannelOption>(_ option: Option) throws -> Option.Value {
        let value: Any
        switch option {
        case is ChannelOptions.Types.AutoReadOption: value = autoRead
        case is ChannelOptions.Types.WriteBufferWaterMarkOption: value = waterMark
        case is ChannelOptions.Types.AllowRemoteHalfClosureOption: value = false
        case is ChannelOptions.Types.BufferedWritableBytesOption: value = pendingBytes
        default: throw ChannelError.operationUnsupported
        }
        guard let typed = value as? Option.Value else { throw ChannelError.operationUnsupported }
        return typed
    }

    // MARK: ChannelCore

    public func localAddress0() throws -> SocketAddress { throw ChannelError.operationUnsupported }
    public func remoteAddress0() throws -> SocketAddress { throw ChannelError.operationUnsupported }

    public func register0(promise: EventLoopPromise<Void>?) { promise?.succeed() }

    public func registerAlreadyConfigured0(promise: EventLoopPromise<Void>?) { promise?.succeed() }

    public func bind0(to: SocketAddress, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    public func connect0(to: SocketAddress, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    public func write0(_ data: NIOAny, promise: EventLoopPromise<Void>?) {
        writeDirectly(unwrapData(data, as: ByteBuffer.self), promise: promise)
    }

    public func flush0() {
        guard open else { return }
        flushedCount = pending.count
        if interest & EPOLLOUT.rawValue == 0 { writeFlushed() }
    }

    public func read0() {
        guard open else { return }
        readPending = true
        watch(interest | EPOLLIN.rawValue)
    }

    /// Queues `bytes` after what is pending, unflushed: what a write through
    /// the pipeline ends in, called by its only handler. On the loop.
    public func writeDirectly(_ bytes: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard open else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        pending.append(PendingWrite(bytes: bytes, promise: promise))
        pendingBytes += bytes.readableBytes
        if pendingBytes > waterMark.high, writable.load(ordering: .relaxed) {
            writable.store(false, ordering: .relaxed)
            pipeline.syncOperations.fireChannelWritabilityChanged()
        }
    }

    /// Writes and flushes `bytes` (call it on the loop). With no write
    /// queued before them, the usual case for a subscriber's event, that is
    /// one `send(2)` straight from the array: no buffer, no queue. What the
    /// socket does not take is queued, copied, and goes out when the socket
    /// is writable again. Unflushed writes queued before are flushed with them.
    public func sendNow(_ bytes: [UInt8]) {
        guard open, !bytes.isEmpty else { return }
        guard pending.isEmpty else {
            var copy = allocator.buffer(capacity: bytes.count)
            copy.writeBytes(bytes)
            writeDirectly(copy, promise: nil)
            return flush0()
        }
        var sent = 0
        while true {
            let count = bytes.withUnsafeBytes { raw in
                propd_send(fd, raw.baseAddress.map { $0 + sent }, raw.count - sent, Self.sendFlags)
            }
            if count > 0 {
                sent += count
                if sent == bytes.count { return }
                continue
            }
            if count == 0 { break }
            let failure = errno
            if failure == EINTR { continue }
            if failure == EAGAIN || failure == EWOULDBLOCK { break }
            return fail(sending: failure)
        }
        var rest = allocator.buffer(capacity: bytes.count - sent)
        rest.writeBytes(bytes[sent...])
        writeDirectly(rest, promise: nil)
        flushedCount = pending.count
        watch(interest | EPOLLOUT.rawValue)
    }

    /// Makes `handler`, the pipeline's only handler, the one the channel
    /// calls itself for reads (``EpollDirectHandler``), until it detaches or
    /// the channel closes. On the loop.
    public func attach(_ handler: any EpollDirectHandler) {
        loop.preconditionInEventLoop()
        if open { direct = handler }
    }

    /// Sends reads through the pipeline again. On the loop.
    public func detach() {
        loop.preconditionInEventLoop()
        direct = nil
    }

    public func close0(error: any Error, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all else {
            promise?.fail(ChannelError.operationUnsupported)
            return
        }
        guard open else {
            promise?.fail(ChannelError.alreadyClosed)
            return
        }
        open = false
        direct = nil  // the handler holds the pipeline, which holds the channel
        let wasActive = active.exchange(false, ordering: .relaxed)
        if registered { loop.deregister(fd) }
        Glibc.close(fd)
        let failed = pending
        pending.removeAll()
        flushedCount = 0
        pendingBytes = 0
        for write in failed { write.promise?.fail(ChannelError.ioOnClosedChannel) }
        promise?.succeed()
        if wasActive {
            pipeline.syncOperations.fireChannelInactive()
            pipeline.syncOperations.fireChannelUnregistered()
        }
        // As NIO's own channels: the handlers leave in a later task, after
        // what the close's callbacks queued.
        loop.execute { [self] in
            removeHandlers(pipeline: pipeline)
            closePromise.succeed()
        }
    }

    public func triggerUserOutboundEvent0(_ event: Any, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    public func channelRead0(_ data: NIOAny) {}

    public func errorCaught0(error: any Error) {}

    // MARK: I/O

    private func watch(_ events: UInt32) {
        guard events != interest, open else { return }
        interest = events
        if registered { loop.modify(fd, events: events) }
    }

    private func readable() {
        guard readPending else {
            // Reads are held (the pipeline asked for none): stop watching
            // until it asks, or the loop would be woken for them again and again.
            watch(interest & ~EPOLLIN.rawValue)
            return
        }
        readPending = false
        var reads = 0
        var ended: (any Error)?
        while open {
            loop.readBuffer.clear()
            // errno read at once, before anything else can change it.
            let (count, failure) = loop.readBuffer.withUnsafeMutableWritableBytes { space in
                let count = propd_read(fd, space.baseAddress, space.count)
                return (count, count < 0 ? errno : 0)
            }
            if count > 0 {
                loop.readBuffer.moveWriterIndex(forwardBy: count)
                reads += 1
                if let direct {
                    direct.channelReadDirectly(loop.readBuffer)
                } else {
                    pipeline.syncOperations.fireChannelRead(NIOAny(loop.readBuffer))
                }
                // A read that did not fill the buffer took what there was.
                if count < EpollEventLoop.readSize || reads == Self.readsPerTick { break }
            } else if count == 0 {
                ended = ChannelError.eof
                break
            } else if failure == EINTR {
                continue
            } else if failure == EAGAIN || failure == EWOULDBLOCK {
                break
            } else {
                let error = IOError(errnoCode: failure, reason: "read(2)")
                ended = error
                pipeline.syncOperations.fireErrorCaught(error)
                break
            }
        }
        guard open else { return }
        if reads > 0 {
            if let direct { direct.channelReadCompleteDirectly() } else { pipeline.syncOperations.fireChannelReadComplete() }
        }
        if let ended {
            close0(error: ended, mode: .all, promise: nil)
        } else if open, autoRead {
            if let direct { direct.readRequestedDirectly() } else { pipeline.syncOperations.read() }
        }
        if open, !readPending { watch(interest & ~EPOLLIN.rawValue) }
    }

    /// Reads of one readiness, as NIO's `maxMessagesPerRead`: a connection
    /// that never drains does not starve its loop's others.
    private static let readsPerTick = 4

    /// Writes what is flushed until it is all written or the socket is full.
    private func writeFlushed() {
        while open, flushedCount > 0 {
            let (count, failure): (Int, Int32)
            if flushedCount == 1 {
                (count, failure) = pending[pending.startIndex].bytes.withUnsafeReadableBytes { bytes in
                    let count = bytes.isEmpty ? 0 : propd_send(fd, bytes.baseAddress, bytes.count, Self.sendFlags)
                    return (count, count < 0 ? errno : 0)
                }
            } else {
                (count, failure) = writeVectored()
            }
            if count < 0 {
                if failure == EINTR { continue }
                if failure == EAGAIN || failure == EWOULDBLOCK {
                    watch(interest | EPOLLOUT.rawValue)
                    return
                }
                return fail(sending: failure)
            }
            consume(count)
        }
        guard open else { return }
        watch(interest & ~EPOLLOUT.rawValue)
        if pendingBytes < waterMark.low, !writable.load(ordering: .relaxed) {
            writable.store(true, ordering: .relaxed)
            pipeline.syncOperations.fireChannelWritabilityChanged()
        }
    }

    /// A send failed with `failure` (not a full socket): the pipeline is
    /// told, and the channel closes.
    private func fail(sending failure: Int32) {
        let error = IOError(errnoCode: failure, reason: "send(2)")
        pipeline.syncOperations.fireErrorCaught(error)
        close0(error: error, mode: .all, promise: nil)
    }

    /// `sendmsg(2)` of up to 64 flushed buffers: the bytes sent, and errno
    /// when none were.
    private func writeVectored() -> (Int, Int32) {
        let count = min(flushedCount, Self.vectorLength)
        return withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors in
            // The buffers stay in `pending`, so their storage outlives the call.
            var index = 0
            for offset in 0..<count {
                pending[pending.index(pending.startIndex, offsetBy: offset)].bytes.withUnsafeReadableBytes { bytes in
                    vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
                }
                index += 1
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = count
            let count = propd_sendmsg(fd, &message, Self.sendFlags)
            return (count, count < 0 ? errno : 0)
        }
    }

    private static let vectorLength = 64

    /// A peer that has gone gets EPIPE, not SIGPIPE (which would end the daemon).
    private static let sendFlags = Int32(MSG_NOSIGNAL)

    /// Drops `count` written bytes from the front, completing each write
    /// written whole.
    private func consume(_ count: Int) {
        var left = count
        pendingBytes -= count
        while flushedCount > 0 {
            let size = pending[pending.startIndex].bytes.readableBytes
            guard size <= left else {
                pending[pending.startIndex].bytes.moveReaderIndex(forwardBy: left)
                return
            }
            left -= size
            let write = pending.removeFirst()
            flushedCount -= 1
            write.promise?.succeed()
            guard open else { return }
        }
    }
}

extension EpollStreamChannel: EpollReadinessHandler {
    func loopEnding() {
        close0(error: EventLoopError.shutdown, mode: .all, promise: nil)
    }

    func ready(_ events: UInt32) {
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0, !readPending {
            // The peer is gone both ways and nothing is to be read: its
            // calls can have no answer.
            close0(error: ChannelError.eof, mode: .all, promise: nil)
            return
        }
        if events & EPOLLOUT.rawValue != 0 { writeFlushed() }
        if open, events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readable() }
    }
}

extension EpollStreamChannel {
    /// `getsockopt(2)` of the socket, on the loop: `Value` must be the
    /// option's C type (as `struct ucred` for `SO_PEERCRED`).
    public func socketOption<Value: BitwiseCopyable>(level: Int32, name: Int32, as: Value.Type) throws -> Value {
        try withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { space in
            let raw = UnsafeMutableRawBufferPointer(space)
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            var length = socklen_t(MemoryLayout<Value>.size)
            guard getsockopt(fd, level, name, raw.baseAddress, &length) == 0 else {
                throw IOError(errnoCode: errno, reason: "getsockopt(2)")
            }
            return raw.load(as: Value.self)
        }
    }
}
