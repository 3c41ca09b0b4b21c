extension PropertyStore {
    /// ``write(_:)`` without a task: queues `body` now and calls `completion`
    /// (on the writer, exactly once) when the request's fate is known.
    ///
    /// Requests submitted one after another from one thread run in that
    /// order, which `write` from separate tasks cannot promise: a server uses
    /// this to keep a connection's pipelined writes in the client's order.
    ///
    /// - Parameter needsSavepoint: false for a body that only ever throws
    ///   before its first write (it validates first, then writes, and after
    ///   that only a storage failure can stop it, which abandons the whole
    ///   batch anyway). It then runs without a savepoint of its own, a tenth
    ///   of a plain write's cost. Should such a body throw after writing
    ///   anyway, the whole batch is abandoned rather than half-kept.
    /// - Parameter resumesTask: true when `completion` resumes a task (a
    ///   continuation): past a few such callers in a batch, the writer
    ///   resumes them from one task rather than waking a thread for each.
    /// - Parameter deferred: queue the request without waking the writer;
    ///   the caller promises to call ``commitPending()`` soon (an event loop
    ///   at the end of its tick), and until then the request waits, unless
    ///   a batch already being written takes it along.
    public func submit<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction) throws -> T,
        needsSavepoint: Bool = true,
        deferred: Bool = false,
        resumesTask: Bool = false,
        completion: @escaping @Sendable (Result<Committed<T>, any Error>) -> Void
    ) {
        var job = WriteJob(
            run: { transaction in
                let value: T
                do {
                    value = try body(&transaction)
                } catch {
                    completion(.failure(error))
                    return nil
                }
                return { outcome in
                    completion(outcome.map { Committed(value: value, changeSet: $0) }.mapError { $0 })
                }
            },
            fail: { error in completion(.failure(error)) }
        )
        job.needsSavepoint = needsSavepoint
        job.resumesTask = resumesTask
        groupCommit.submit(job, deferred: deferred)
    }

    /// Commits the pending requests (those queued `deferred` above all) on
    /// the calling thread, and calls their completions here. When the writer
    /// is busy it waits for it (with `normal` durability a batch takes tens
    /// of microseconds; waiting costs less than waking another thread).
    ///
    /// > Important: this blocks the caller for a commit or two (an fsync
    /// > each with `full` durability).
    public func commitPending() {
        groupCommit.commitPending()
    }
}
