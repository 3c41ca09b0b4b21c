import PropdCore

/// One queued write request, with its result type erased so that requests of
/// any type share the writer's queue.
struct WriteJob: Sendable {
    /// Resumes a caller whose body succeeded, once the batch's fate is known.
    typealias Completion = @Sendable (Result<ChangeSet, StoreError>) -> Void

    /// Runs the body inside the request's savepoint. Returns the completion
    /// when the body succeeded; when it threw, the caller has already been
    /// given the error and `nil` is returned.
    let run: @Sendable (inout WriteTransaction) -> Completion?
    /// Fails a request whose body never ran (its batch was abandoned first).
    let fail: @Sendable (StoreError) -> Void
    /// Whether the body runs in a savepoint of its own. A body that can only
    /// fail before its first write needs none (see
    /// ``WriteSubmission/Rollback``).
    var needsSavepoint = true
    /// Whether the completion resumes a task (a continuation: the origin is
    /// ``WriteOrigin/task``), which may wake a thread of the global executor;
    /// other completions only hand the outcome on (an event loop's task
    /// queue) and are called directly.
    var resumesTask = false
}
