import Dispatch
import Synchronization

/// The store's one writing connection, and the lock and serial queue it is
/// used under. The group-commit writer drains on the queue (`async`), or
/// commits on the caller's thread (`sync`: an event loop at the end of its
/// tick), holding the lock either way.
///
/// `sync` takes the lock rather than `DispatchQueue.sync`, which would
/// allocate for its block at every end-of-tick commit, a lone Set's.
///
/// `@unchecked Sendable` is sound: `connection` is private and reached only
/// inside `inUse.withLock`, so no two threads ever use it at once; the
/// blocks are given the connection as an argument and do not keep it (they
/// run the batch, which ends with them).
final class WriterQueue: @unchecked Sendable {
    private let queue = DispatchQueue(label: "propd.store.writer")
    private let inUse = Mutex(())
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs `body` with the connection on the calling thread, once the
    /// writer is free. Never call it from inside a block of this queue.
    func sync<T: Sendable, E: Error>(_ body: (SQLiteConnection) throws(E) -> T) throws(E) -> T {
        try inUse.withLock { _ throws(E) in try body(connection) }
    }

    /// Runs `body` with the connection on the writer's queue.
    func async(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        queue.async { self.inUse.withLock { _ in body(self.connection) } }
    }
}
