import Synchronization

/// The writer's engine behind a lock.
///
/// `Mutex` cannot hold it: write bodies hand the engine the store's
/// transaction (not `Sendable`) in the same call, which region isolation
/// rightly refuses for a `sending` value it cannot see the end of.
///
/// Why `@unchecked Sendable` is safe here: `state` is private and read or
/// written only inside `withLock`, which holds `lock` for the whole access, so
/// no two threads ever touch it at once; and `withLock`'s result type is
/// chosen by the callers in this module, none of which return the engine, its
/// clock, or anything that references them. (In practice the store's writer
/// already runs bodies one at a time; the lock makes that a guarantee for the
/// service's start-up code too.)
final class EngineLock: @unchecked Sendable {
    private let lock = Mutex(())
    private var state: EngineState

    init(_ state: EngineState) {
        self.state = state
    }

    func withLock<R>(_ body: (inout EngineState) throws -> R) rethrows -> R {
        try lock.withLock { _ in try body(&state) }
    }
}
