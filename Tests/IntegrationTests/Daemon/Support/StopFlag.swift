import Synchronization

/// Tells a reader thread to end; shared between the thread and its owner so
/// the thread does not keep the owner alive.
final class StopFlag: Sendable {
    private let stopped = Atomic<Bool>(false)

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    func stop() { stopped.store(true, ordering: .releasing) }
}
