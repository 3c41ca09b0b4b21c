import CEpoll
public import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// A listening Unix stream socket on an ``EpollEventLoop``: it accepts each
/// connection as an ``EpollStreamChannel`` on the next loop of its group.
public final class EpollListener: @unchecked Sendable {
    // @unchecked: `open` and `pausedUntilRetry` are touched only on `loop`
    // (`ready`, and the tasks `close` and the retry queue there).
    public let loop: EpollEventLoop
    private let fd: Int32
    private let group: EpollEventLoopGroup
    private let waterMark: ChannelOptions.Types.WriteBufferWaterMark
    private let initialize: @Sendable (EpollStreamChannel) -> EventLoopFuture<Void>
    private let acceptFailed: @Sendable (IOError) -> Void
    private let closePromise: EventLoopPromise<Void>
    private var open = true
    private var pausedUntilRetry = false

    /// Succeeds once the listener is closed.
    public var closeFuture: EventLoopFuture<Void> { closePromise.futureResult }

    /// Listens on `fd`, a bound stream socket (`listen(2)` is called here),
    /// and serves each accepted connection on `group`'s loops in turn:
    /// `initialize` adds its handlers, then it is registered and made active.
    /// The listener owns `fd` from here on, and closes it if it cannot listen.
    /// When `accept(2)` fails for want of descriptors or memory, the
    /// listener tells `acceptFailed` and accepts again 100 ms later (the
    /// connections meanwhile wait in the listen queue).
    public static func listen(
        on fd: Int32, group: EpollEventLoopGroup, backlog: Int32,
        waterMark: ChannelOptions.Types.WriteBufferWaterMark,
        acceptFailed: @escaping @Sendable (IOError) -> Void = { _ in },
        initialize: @escaping @Sendable (EpollStreamChannel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<EpollListener> {
        let loop = group.nextLoop()
        return loop.submit {
            let flags = fcntl(fd, F_GETFL)
            guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, Glibc.listen(fd, backlog) == 0 else {
                let error = errno
                Glibc.close(fd)
                throw IOError(errnoCode: error, reason: "listen(2)")
            }
            let listener = EpollListener(
                fd: fd, loop: loop, group: group, waterMark: waterMark, acceptFailed: acceptFailed,
                initialize: initialize)
            do {
                try loop.register(fd, events: EPOLLIN.rawValue, handler: listener)
            } catch {
                Glibc.close(fd)
                listener.closePromise.fail(error)
                throw error
            }
            return listener
        }
    }

    /// A Unix stream socket bound to `path` (an existing socket file there is
    /// replaced), not yet listening.
    public static func bind(unixDomainSocketPath path: String) throws -> Int32 {
        let address = try SocketAddress(unixDomainSocketPath: path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket(2)") }
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        let bound = address.withSockAddr { pointer, length in
            Glibc.bind(fd, pointer, socklen_t(length))
        }
        guard bound == 0 else {
            let error = errno
            Glibc.close(fd)
            throw IOError(errnoCode: error, reason: "bind(2)")
        }
        return fd
    }

    private init(
        fd: Int32, loop: EpollEventLoop, group: EpollEventLoopGroup,
        waterMark: ChannelOptions.Types.WriteBufferWaterMark,
        acceptFailed: @escaping @Sendable (IOError) -> Void,
        initialize: @escaping @Sendable (EpollStreamChannel) -> EventLoopFuture<Void>
    ) {
        self.fd = fd
        self.loop = loop
        self.group = group
        self.waterMark = waterMark
        self.acceptFailed = acceptFailed
        self.initialize = initialize
        closePromise = loop.makePromise(of: Void.self)
    }

    /// Stops accepting and closes the socket.
    public func close() {
        loop.execute { [self] in closeOnLoop() }
    }

    private func closeOnLoop() {
        guard open else { return }
        open = false
        loop.deregister(fd)
        Glibc.close(fd)
        closePromise.succeed()
    }

    private func accept() {
        for _ in 0..<Self.acceptsPerTick {
            let connection = accept4(fd, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if connection >= 0 {
                serve(connection)
                continue
            }
            let failure = errno
            switch failure {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return
            default:
                // Out of descriptors (EMFILE, ENFILE) or memory: the pending
                // connection stays queued, and the listener is not watched
                // for a while, or its readiness would spin the loop.
                pause(after: IOError(errnoCode: failure, reason: "accept4(2)"))
                return
            }
        }
    }

    /// Accepts of one readiness: a flood of connections does not starve
    /// the loop's connections.
    private static let acceptsPerTick = 64

    private func pause(after failure: IOError) {
        guard !pausedUntilRetry else { return }
        pausedUntilRetry = true
        acceptFailed(failure)
        loop.modify(fd, events: 0)
        _ = loop.scheduleTask(in: .milliseconds(100)) { [self] in
            pausedUntilRetry = false
            if open { loop.modify(fd, events: EPOLLIN.rawValue) }
        }
    }

    private func serve(_ fd: Int32) {
        let target = group.nextLoop()
        let waterMark = self.waterMark
        let initialize = self.initialize
        target.execute {
            let channel = EpollStreamChannel(fd: fd, loop: target, waterMark: waterMark)
            initialize(channel).whenComplete { result in
                switch result {
                case .success: channel.activate()
                case .failure: channel.close(promise: nil)
                }
            }
        }
    }
}

extension EpollListener: EpollReadinessHandler {
    func loopEnding() {
        closeOnLoop()
    }

    func ready(_ events: UInt32) {
        if open, !pausedUntilRetry { accept() }
    }
}
