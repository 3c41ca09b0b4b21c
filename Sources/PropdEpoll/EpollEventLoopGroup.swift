public import NIOCore
public import Dispatch
import Synchronization

/// Event loops on epoll (``EpollEventLoop``), handed out in turn.
public final class EpollEventLoopGroup: EventLoopGroup {
    /// The loops, in the order ``next()`` hands them out.
    public let loops: [EpollEventLoop]
    private let turn = Atomic<Int>(0)

    /// Starts `count` loops, each on its own thread named `<name>-<index>`.
    ///
    /// - Throws: ``EpollError`` when a loop cannot be made.
    public init(loops count: Int, name: String) throws(EpollError) {
        var loops: [EpollEventLoop] = []
        do {
            for index in 0..<max(1, count) {
                loops.append(try EpollEventLoop(name: "\(name)-\(index)"))
            }
        } catch {
            for loop in loops { loop.requestStop() }
            throw error
        }
        self.loops = loops
    }

    public func next() -> any EventLoop { nextLoop() }

    /// The next loop in turn, as what it is.
    public func nextLoop() -> EpollEventLoop {
        loops[turn.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    public func any() -> any EventLoop {
        loops.first { $0.inEventLoop } ?? nextLoop()
    }

    public func makeIterator() -> EventLoopIterator { EventLoopIterator(loops) }

    public func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        let running = Mutex(loops.count)
        for loop in loops {
            loop.shutdownGracefully(queue: queue) { _ in
                let last = running.withLock { running in
                    running -= 1
                    return running == 0
                }
                if last { callback(nil) }
            }
        }
    }

    /// Ends every loop: each runs the tasks queued before, then its thread ends.
    public func stop() async {
        for loop in loops { await loop.stop() }
    }
}
