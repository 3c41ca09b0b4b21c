extension PropertyStore {
    /// The most lone writes a loop's end-of-tick commit commits on that
    /// loop; when more are pending, they commit on the writer's thread.
    /// A loop that serves one connection commits what its tick read
    /// however many it is (up to a batch's maximum).
    public static var tickCommitLimit: Int { GroupCommit.tickCommitLimit }

    /// Queues `submission` now and calls its completion exactly once, when
    /// the request's fate is known.
    ///
    /// Requests submitted one after another from one thread run in that
    /// order, which ``write(_:)`` from separate tasks cannot promise: a
    /// server uses this to keep a connection's pipelined writes in the
    /// client's order. Where it commits: see ``submit(_:rollback:origin:)``.
    ///
    /// Specialized for `Void` (what Delete, Unbind and timers return):
    /// called through the ``PropertyStorage`` seam, the generic version
    /// looks up the metadata of its closures' types at run time for every
    /// request, a few percent of the writer's thread.
    @_specialize(where T == Void)
    public func submit<T: Sendable>(_ submission: consuming WriteSubmission<T>) {
        let rollback = submission.rollback
        let origin = submission.origin
        // Moved into its request, not copied: a copy retains and releases
        // each closure and the origin once more. Decided when this is
        // specialized: a Void body takes the non-generic path.
        let request: any QueuedWrite =
            switch consume submission {
            case let submission as WriteSubmission<Void>: SubmittedVoidWrite(submission)
            case let submission: SubmittedWrite(submission)
            }
        submit(request, rollback: rollback, origin: origin)
    }

    /// Queues `write`, a request that is its own body and answer, now.
    ///
    /// Where it commits is decided here, from `origin`:
    /// - A call that was alone on its connection, submitted on its event
    ///   loop, waits for the end of that loop's tick and commits there with
    ///   the tick's other such writes, without a thread hop either way (a
    ///   burst of more than ``tickCommitLimit`` goes to the writer's
    ///   thread). With `full` durability only on a loop that serves that
    ///   one connection: a commit waits for an fsync, which must not hold
    ///   up a loop's other clients, but with none there the hop to the
    ///   writer's thread and back buys nothing.
    /// - A pipelining connection's call, submitted on a loop that serves
    ///   that connection alone, with `normal` durability, commits at the
    ///   end of the tick on the loop too, with every call the tick read:
    ///   the client waits for those replies before it sends more, so a
    ///   hand-over to the writer's thread would overlap little with them
    ///   but cost a wake-up each way, on the cores the client needs.
    /// - Any other pipelining connection's call, submitted on its loop,
    ///   waits for the end of the tick too, which then wakes the writer's
    ///   thread once for all the tick read: one batch, where the first
    ///   call's wake-up would have the writer commit the tick's calls in
    ///   pieces as they are read. The loop goes on reading meanwhile (its
    ///   other connections, or in `full` this one's next calls).
    /// - Anything else (a lone call in `full` on a loop that serves other
    ///   connections, whose fsync had best start at once; a task's write, a
    ///   timer's) wakes the writer's own thread, which commits whatever is
    ///   pending while the submitter goes on.
    public func submit(_ write: any QueuedWrite, rollback: WriteRollback, origin: WriteOrigin) {
        var job = WriteJob(write)
        job.needsSavepoint = rollback == .savepoint
        switch origin {
        case .loop(let loop, alone: true)
        where loop.isCurrent && (configuration.durability == .normal || loop.servesOneConnection):
            groupCommit.submit(job, atEndOfTickOn: loop, committingThere: true)
        case .loop(let loop, alone: false)
        where loop.isCurrent && configuration.durability == .normal && loop.servesOneConnection:
            groupCommit.submit(job, atEndOfTickOn: loop, committingThere: true)
        case .loop(let loop, alone: false) where loop.isCurrent:
            groupCommit.submit(job, atEndOfTickOn: loop, committingThere: false)
        case .task:
            job.resumesTask = true
            groupCommit.submit(job)
        case .loop, .thread:
            groupCommit.submit(job)
        }
    }
}
