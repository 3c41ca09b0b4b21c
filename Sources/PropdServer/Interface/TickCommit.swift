import NIOCore
import Synchronization

/// Commits the writes an event loop received during one tick together, on
/// that loop, once the tick's reads are done.
///
/// A write handler submits its request *deferred* and asks for a commit
/// here; the first request of a tick schedules one task on the loop, which
/// NIO runs after the tick's I/O, so the deferred writes read in that tick
/// (from all of the loop's connections) share one transaction, and their
/// replies are written from the loop that owns their connections, without a
/// thread hop. (`PropertyStore.commitPending` hands a burst to the writer's
/// own thread instead.)
final class TickCommit: Sendable {
    private let scheduled = Mutex<Set<ObjectIdentifier>>([])
    private let commit: @Sendable () -> Void

    /// - Parameter commit: commits what is pending, on the calling thread.
    init(_ commit: @escaping @Sendable () -> Void) {
        self.commit = commit
    }

    /// Commits at the end of `loop`'s current tick. Call it on `loop`.
    func schedule(on loop: any EventLoop) {
        let id = ObjectIdentifier(loop)
        let first = scheduled.withLock { $0.insert(id).inserted }
        guard first else { return }
        loop.execute { [self] in
            scheduled.withLock { _ = $0.remove(id) }
            commit()
        }
    }
}
