public import Foundation
import Synchronization

/// Starts children one at a time across the whole test process.
///
/// Foundation's `Process.run()` copies the environment and argument strings
/// while it spawns; two of them running at once on this toolchain crashed the
/// test process inside `Process.run()` (a bad read in `memcpy`). A spawn is a
/// few milliseconds, so taking turns costs nothing the tests can notice.
public enum ProcessLaunch {
    private static let turn = Mutex(())

    public static func run(_ process: Process) throws {
        try turn.withLock { _ in try process.run() }
    }
}
