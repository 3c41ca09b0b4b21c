import PropdCore

/// One queued write request, with its result type erased so that requests of
/// any type share the writer's queue.
struct WriteJob: Sendable {
    /// The request itself: its body, and who is waiting for it.
    let request: any QueuedWrite
    /// Whether the body runs in a savepoint of its own. A body that can only
    /// fail before its first write needs none (see
    /// ``WriteSubmission/Rollback``).
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

/// A write request as the group-commit writer sees it, whatever its body
/// returns. One object per request: it is what the submitter allocates,
/// and it carries the body's value from the run to the batch's outcome.
protocol QueuedWrite: AnyObject, Sendable {
    /// Runs the body inside the request's revision (and savepoint, if any).
    /// Returns false when the body threw: its caller has then been told.
    func run(_ transaction: inout WriteTransaction) -> Bool
    /// Tells the caller the fate of the batch whose run returned true.
    /// Called once, after the batch committed or failed.
    func finish(_ outcome: Result<ChangeSet, StoreError>)
    /// Fails a request whose body never ran (its batch was abandoned first).
    func fail(_ error: StoreError)
}
