public import Foundation
import Synchronization

/// Starts children one at a time across the whole test process.
///
/// Two `Process.run()` calls at once crashed the test process inside
/// `Process.run()` (a bad read in `memcpy`, likely the overread that
/// ``limit`` guards against). A spawn is a few milliseconds, so taking turns
/// costs nothing the tests can notice.
public enum ProcessLaunch {
    /// Too many descriptors open in the test process for a safe spawn.
    public struct TooManyOpenDescriptors: Error, CustomStringConvertible {
        public var open: Int
        public var description: String {
            "\(open) descriptors are open in the test process; Foundation's spawn can crash above \(limit)"
        }
    }

    /// `Process.run()` lists /proc/self/fd and copies each entry's whole
    /// 256-byte name field; when the listing fills its 32 KiB directory buffer
    /// (about 1,360 descriptors) the copy of the last entries reads past the
    /// buffer, and the test process died with SIGSEGV. Above this many open
    /// descriptors a spawn fails its test instead.
    static let limit = 1_200

    private static let turn = Mutex(())

    public static func run(_ process: Process) throws {
        let handler = process.terminationHandler
        process.terminationHandler = { ended in
            handler?(ended)
            // Tests wait with `ChildExit`, never `waitUntilExit()`, which is
            // what frees a `Process`; Foundation has reaped the child when it
            // calls this handler.
            ProcessReaper.release(ended)
        }
        try turn.withLock { _ in
            let open = openDescriptors()
            guard open <= limit else { throw TooManyOpenDescriptors(open: open) }
            try process.run()
        }
    }

    /// Counts the entries of /proc/self/fd without copying their names.
    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count - 2  // "." and ".."
    }
}
