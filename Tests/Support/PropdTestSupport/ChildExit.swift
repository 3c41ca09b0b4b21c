public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Waiting for a child started with Foundation's `Process`, without
/// depending on Foundation to notice its end.
///
/// `Process.waitUntilExit()` spins on the calling thread, running its run
/// loop, until Foundation has reaped the child: tests waiting that way held
/// the cooperative pool's few threads (one per core) for as long as their
/// children ran, and the whole test process stalled. `waitid` with `WNOWAIT`
/// blocks without spinning, returns as soon as the kernel has the exit
/// status, and leaves the child for Foundation to reap.
public enum ChildExit {
    /// Blocks until `process` has ended; its exit status, or 128 + the
    /// signal that ended it (as a shell reports it).
    @discardableResult
    public static func wait(_ process: Process) -> Int32 {
        var info = siginfo_t()
        while waitid(P_PID, id_t(process.processIdentifier), &info, WEXITED | WNOWAIT) != 0 {
            guard errno == EINTR else {
                // ECHILD: Foundation has reaped it already, and knows how it ended.
                ProcessReaper.waitUntilExit(process)
                let status = process.terminationStatus
                return process.terminationReason == .exit ? status : 128 + status
            }
        }
        // si_status of the _sigchld member: the code, or the signal.
        let status = info._sifields._sigchld.si_status
        return info.si_code == CLD_EXITED ? status : 128 + status
    }

    /// ``wait(_:)`` for at most `timeout` (the wait runs on a Dispatch
    /// thread); nil when the process is still running then.
    public static func wait(_ process: Process, timeout: Duration) -> Int32? {
        let exited = DispatchSemaphore(value: 0)
        let status = Mutex<Int32>(-1)
        DispatchQueue.global().async {
            let code = wait(process)
            status.withLock { $0 = code }
            exited.signal()
        }
        guard exited.wait(timeout: .now() + Double(timeout.components.seconds)) == .success else { return nil }
        return status.withLock { $0 }
    }
}
