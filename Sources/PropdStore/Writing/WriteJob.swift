import PropdCore

/// One queued write request, with its result type erased so that requests of
/// any type share the writer's queue.
struct WriteJob: Sendable {
    /// The request itself: its body, and who is waiting for it.
    let request: any QueuedWrite
    /// Whether the body runs in a savepoint of its own. A body that can only
    /// fail before its first write needs none (see
    /// ``WriteRollback``).
    var needsSavepoint = true
    /// Whether the completion resumes a task (a continuation: the origin is
    /// ``WriteOrigin/task``), which may wake a thread of the global executor;
    /// other completions only hand the outcome on (an event loop's task
    /// queue) and are called directly.
    var resumesTask = false

    init(_ request: any QueuedWrite) {
        self.request = request
    }
}
