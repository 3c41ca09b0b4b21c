public import Foundation
import Synchronization

/// The one thread on which the tests call `Process.waitUntilExit()`.
///
/// `waitUntilExit()` gives the calling thread a run loop, and Foundation
/// crashes finalizing a run loop when its thread exits (`__CFFinalizeRunLoop`
/// from the thread's TSD destructor): the test process died with SIGSEGV once
/// a Dispatch worker that had called it retired. This thread never exits. It
/// is handed only processes Foundation has reaped, so each call returns at once.
public enum ProcessReaper {
    /// Frees `process` (and the pipe ends it holds) on the reaper thread:
    /// Foundation frees a `Process` only in `waitUntilExit()`, until then it
    /// and its run-loop source retain each other. Call it once Foundation has
    /// reaped the child (from its termination handler).
    public static func release(_ process: Process) {
        submit(Job(process: process, done: nil))
    }

    /// `process.waitUntilExit()` on the reaper thread, for a child Foundation
    /// has reaped; returns once it has run.
    public static func waitUntilExit(_ process: Process) {
        let done = DispatchSemaphore(value: 0)
        submit(Job(process: process, done: done))
        done.wait()
    }

    /// A process handed to the reaper thread.
    ///
    /// `@unchecked Sendable`: the submitter does not touch the process from
    /// the hand-over until `done` is signalled (or ever, without `done`), so
    /// only one thread uses it at a time, and the semaphore orders the two.
    private struct Job: @unchecked Sendable {
        let process: Process
        let done: DispatchSemaphore?
    }

    private static let jobs = Mutex<[Job]>([])
    private static let pending = DispatchSemaphore(value: 0)

    private static let thread: Void = {
        let thread = Thread {
            while true {
                pending.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.process.waitUntilExit()
                job.done?.signal()
            }
        }
        thread.name = "ProcessReaper"
        thread.start()
    }()

    private static func submit(_ job: Job) {
        _ = thread
        jobs.withLock { $0.append(job) }
        pending.signal()
    }
}
