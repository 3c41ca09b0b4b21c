import Dispatch

/// The store's one writing connection and the serial queue it is used on.
/// The group-commit writer drains on the queue (`async`), or commits on the
/// caller's thread while it holds the queue (`sync`: an event loop at the
/// end of its tick; Dispatch runs the block on the calling thread).
///
/// `@unchecked Sendable` is sound: `connection` is private and reached only
/// inside blocks run by `queue`, which is serial, so no two threads ever use
/// it at once; the blocks are given the connection as an argument and do not
/// keep it (they run the batch, which ends with them).
final class WriterQueue: @unchecked Sendable {
    private let queue = DispatchQueue(label: "propd.store.writer")
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs `body` with the connection on the calling thread, once the
    /// writer is free. Never call it from inside a block of this queue.
    func sync<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try queue.sync { try body(connection) }
    }

    /// Runs `body` with the connection on the writer's queue.
    func async(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        queue.async { body(self.connection) }
    }
}
