import Dispatch
import Synchronization

/// A loop that runs on one thread until it is told to stop.
protocol ThreadLoop: Sendable {
    func run(until stop: () -> Bool)
}

/// Runs a ``ThreadLoop`` on a Dispatch thread of its own until ``stop()``.
final class LoopThread: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(_ loop: some ThreadLoop) {
        DispatchQueue.global().async { [self] in
            loop.run { stopped.load(ordering: .relaxed) }
            finished.signal()
        }
    }

    /// Tells the loop to stop and waits until it has.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
    }
}
