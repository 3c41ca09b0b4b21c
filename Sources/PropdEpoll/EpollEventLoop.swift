import CEpoll
public import NIOCore
public import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A descriptor's owner on a loop, told when the descriptor is ready.
protocol EpollReadinessHandler: AnyObject {
    /// `events` is epoll's mask (`EPOLLIN`, `EPOLLOUT`, `EPOLLHUP`, …).
    func ready(_ events: UInt32)
    /// The loop is ending with the descriptor still registered: close it.
    func loopEnding()
}

/// A SwiftNIO event loop on one thread calling `epoll_wait` itself.
///
/// It runs tasks, timers and promises as any NIO loop does, so everything
/// written for `EventLoop` (futures, `NIOLoopBound`, `LoopMailbox`) runs on
/// it unchanged; what it leaves out is NIO's selector and socket channels
/// and their bookkeeping around each `read` and `write` (BENCHMARKS.md,
/// "Why the write path is built this way"). Its descriptors are its own
/// channels' (``EpollStreamChannel``, ``EpollListener``), registered
/// level-triggered.
///
/// A tick is NIO's: the ready descriptors' I/O, then the timers due, then
/// the tasks queued so far, so a task queued during the reads runs after them.
public final class EpollEventLoop: EventLoop, @unchecked Sendable {
    // @unchecked: `registrations` and `readBuffer` are touched only on the
    // loop's thread (`register`, `modify` and `deregister` assert it, the
    // channels read only from the loop's `ready` calls); everything other
    // threads reach is in `shared` or `stopped` (Mutexes) or `thread` (an Atomic).
    private let epoll: Int32
    private let wakeup: Int32
    private let shared = Mutex(SharedState())
    private let thread = Atomic<UInt>(0)
    private let stopped = Mutex<[CheckedContinuation<Void, Never>]?>([])
    private var registrations: [(any EpollReadinessHandler)?] = []
    /// The loop's bytes for `read(2)`: each read's bytes go up the
    /// pipeline in it, and it is reused once nobody holds it.
    var readBuffer: ByteBuffer

    fileprivate struct SharedState {
        var tasks: [@Sendable () -> Void] = []
        var timers = EpollTimers()
        /// In `epoll_wait` with no wake-up owed: a task from another thread
        /// must write the eventfd.
        var sleeping = false
        var wakeupSent = false
        var stopping = false
        /// The thread has ended and the descriptors are closed: nothing
        /// queued from now on runs, and nothing may write the eventfd.
        var ended = false
        var shutdownCallbacks: [@Sendable ((any Error)?) -> Void] = []
    }

    /// - Throws: ``EpollError`` when the kernel refuses an epoll set or an eventfd.
    init(name: String) throws(EpollError) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw EpollError(operation: "epoll_create1", errno: errno) }
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeup >= 0 else {
            let error = errno
            Glibc.close(epoll)
            throw EpollError(operation: "eventfd", errno: error)
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeup))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else {
            let error = errno
            Glibc.close(epoll)
            Glibc.close(wakeup)
            throw EpollError(operation: "epoll_ctl", errno: error)
        }
        self.epoll = epoll
        self.wakeup = wakeup
        readBuffer = ByteBufferAllocator().buffer(capacity: Self.readSize)
        try start(name: name)
    }

    /// The most one `read(2)` takes: a pipelining client's calls of one
    /// burst arrive in one read.
    static let readSize = 64 * 1024

    // MARK: EventLoop

    public var inEventLoop: Bool {
        UInt(pthread_self()) == thread.load(ordering: .relaxed)
    }

    public func execute(_ task: @escaping @Sendable () -> Void) {
        let wake = shared.withLock { state in
            guard !state.ended else { return false }
            state.tasks.append(task)
            return state.wakeRequired()
        }
        if wake { writeWakeup() }
    }

    public func scheduleTask<T>(
        deadline: NIODeadline, _ task: @escaping @Sendable () throws -> T
    ) -> Scheduled<T> {
        let promise = makePromise(of: T.self)
        let timer = EpollTimers.Timer(
            run: { do { promise.assumeIsolated().succeed(try task()) } catch { promise.fail(error) } },
            abandon: { promise.fail(EventLoopError.shutdown) })
        let (id, wake): (UInt64?, Bool) = shared.withLock { state in
            guard !state.ended else { return (nil, false) }
            return (state.timers.add(deadline: deadline, timer), state.wakeRequired())
        }
        guard let id else {
            // A loop that has ended runs nothing.
            timer.abandon()
            return Scheduled(promise: promise) {}
        }
        if wake { writeWakeup() }
        return Scheduled(promise: promise) { [self] in
            let removed = shared.withLock { $0.timers.cancel(id) }
            if removed { promise.fail(EventLoopError.cancelled) }
        }
    }

    public func scheduleTask<T>(in delay: TimeAmount, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        scheduleTask(deadline: .now() + delay, task)
    }

    public func preconditionInEventLoop(file: StaticString, line: UInt) {
        precondition(inEventLoop, "not on this event loop", file: file, line: line)
    }

    public func preconditionNotInEventLoop(file: StaticString, line: UInt) {
        precondition(!inEventLoop, "on this event loop", file: file, line: line)
    }

    public func next() -> any EventLoop { self }

    public func any() -> any EventLoop { self }

    public func makeIterator() -> EventLoopIterator { EventLoopIterator([self]) }

    public func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        let (wake, ended) = shared.withLock { state in
            if state.ended { return (false, true) }
            state.stopping = true
            state.shutdownCallbacks.append { error in queue.async { callback(error) } }
            return (state.wakeRequired(), false)
        }
        if ended { queue.async { callback(nil) } }
        if wake { writeWakeup() }
    }

    /// Asks the loop to end once it has run the tasks queued so far.
    func requestStop() {
        let wake = shared.withLock { state in
            state.stopping = true
            return state.wakeRequired()
        }
        if wake { writeWakeup() }
    }

    /// Ends the loop (``requestStop()``) and returns once its thread has ended.
    func stop() async {
        requestStop()
        await withCheckedContinuation { continuation in
            let waiting = stopped.withLock { waiters in
                guard waiters != nil else { return false }
                waiters?.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    // MARK: Descriptors

    /// Watches `fd` for `events` (level-triggered) on behalf of `handler`,
    /// which the loop keeps until ``deregister(_:)``.
    func register(_ fd: Int32, events: UInt32, handler: any EpollReadinessHandler) throws(EpollError) {
        assert(inEventLoop)
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw EpollError(operation: "epoll_ctl(ADD)", errno: errno)
        }
        let index = Int(fd)
        if index >= registrations.count {
            registrations.append(contentsOf: repeatElement(nil, count: index + 1 - registrations.count))
        }
        registrations[index] = handler
    }

    /// Changes what `fd` is watched for.
    func modify(_ fd: Int32, events: UInt32) {
        assert(inEventLoop)
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        // Fails only for a descriptor not registered, which the caller closed.
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` and forgets its handler (before `fd` is closed).
    func deregister(_ fd: Int32) {
        assert(inEventLoop)
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event)
        if Int(fd) < registrations.count { registrations[Int(fd)] = nil }
    }

    // MARK: The loop

    private final class Start: @unchecked Sendable {
        // @unchecked: written by `start` before the thread exists, read
        // once by the thread.
        let loop: EpollEventLoop
        init(_ loop: EpollEventLoop) { self.loop = loop }
    }

    private func start(name: String) throws(EpollError) {
        var handle = pthread_t()
        let start = Unmanaged.passRetained(Start(self)).toOpaque()
        let result = pthread_create(
            &handle, nil,
            { argument in
                guard let argument else { return nil }
                let loop = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue().loop
                loop.run()
                return nil
            }, start)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw EpollError(operation: "pthread_create", errno: result)
        }
        pthread_detach(handle)
        _ = name.withCString { pthread_setname_np(handle, $0) }
        // Tasks may be queued at once; `inEventLoop` must be right from the
        // first one the thread runs, which it is: the thread stores its id
        // before running anything.
    }

    private func run() {
        thread.store(UInt(pthread_self()), ordering: .relaxed)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var running: [@Sendable () -> Void] = []
        var due: [@Sendable () -> Void] = []
        while true {
            let timeout: Int32 = shared.withLock { state in
                if !state.tasks.isEmpty || state.stopping { return 0 }
                guard let deadline = state.timers.earliest else {
                    state.sleeping = true
                    return -1
                }
                let now = NIODeadline.now()
                if deadline <= now { return 0 }
                let left = deadline.uptimeNanoseconds - now.uptimeNanoseconds
                state.sleeping = true
                // Rounded up: a loop woken before its deadline would wait again.
                return Int32(clamping: (left + 999_999) / 1_000_000)
            }
            let ready = events.withUnsafeMutableBufferPointer { buffer in
                propd_epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            shared.withLock { $0.sleeping = false }
            if ready > 0 {
                for index in 0..<Int(ready) {
                    let fd = events[index].data.fd
                    if fd == wakeup {
                        drainWakeup()
                        continue
                    }
                    guard Int(fd) < registrations.count, let handler = registrations[Int(fd)] else { continue }
                    handler.ready(events[index].events)
                }
            }
            let stopping = shared.withLock { state in
                state.timers.takeDue(now: .now(), into: &due)
                swap(&running, &state.tasks)
                return state.stopping && state.tasks.isEmpty && running.isEmpty && due.isEmpty
            }
            for timer in due { timer() }
            due.removeAll(keepingCapacity: true)
            for task in running { task() }
            running.removeAll(keepingCapacity: true)
            if stopping { break }
        }
        finish()
    }

    private func finish() {
        // What is still open is closed: its handlers and waiters hear of it.
        for case let handler? in registrations { handler.loopEnding() }
        // Tasks queued since the last tick still run: one may complete a
        // promise somebody waits on. Then the loop takes no more.
        while true {
            let tasks = shared.withLock { state in
                if state.tasks.isEmpty { state.ended = true }
                defer { state.tasks = [] }
                return state.tasks
            }
            if tasks.isEmpty { break }
            for task in tasks { task() }
        }
        let (abandoned, callbacks) = shared.withLock { state in
            defer { state.shutdownCallbacks = [] }
            return (state.timers.takeAll(), state.shutdownCallbacks)
        }
        // Still on the loop's thread: a waiter's callbacks run here.
        for timer in abandoned { timer.abandon() }
        Glibc.close(wakeup)
        Glibc.close(epoll)
        for callback in callbacks { callback(nil) }
        let waiters = stopped.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
        // A thread made later may get this one's id.
        thread.store(0, ordering: .relaxed)
    }

    private func writeWakeup() {
        var one: UInt64 = 1
        // EAGAIN only when the counter is full: the loop is owed a wake-up anyway.
        _ = write(wakeup, &one, MemoryLayout<UInt64>.size)
    }

    private func drainWakeup() {
        var count: UInt64 = 0
        _ = read(wakeup, &count, MemoryLayout<UInt64>.size)
        shared.withLock { $0.wakeupSent = false }
    }
}

extension EpollEventLoop.SharedState {
    /// Called with a task or timer just added: whether the loop must be
    /// woken for it (it sleeps, and no wake-up is on its way).
    fileprivate mutating func wakeRequired() -> Bool {
        guard sleeping, !wakeupSent, !ended else { return false }
        wakeupSent = true
        return true
    }
}

/// A system call of the epoll transport that failed.
public struct EpollError: Error, CustomStringConvertible {
    /// The call, as `epoll_ctl(ADD)`.
    public let operation: String
    public let errno: Int32

    public var description: String { "\(operation) failed: \(String(cString: strerror(errno)))" }
}
