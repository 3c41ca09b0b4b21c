/// One write request as its submitter hands it to the store: what to run,
/// what a failure of it rolls back, who is waiting, and how to tell them.
///
/// The submitter says who is writing (``origin``); the store alone decides
/// where and when the request commits from it: at the end of an event
/// loop's tick on that loop, or on the store's own writer, in which batch,
/// and when a checkpoint runs.
///
/// ```swift
/// store.submit(WriteSubmission({ tx in try tx.set(try Key("a"), 1) }, origin: .thread) { result in
///     print(result.map(\.revision))   // .success(42), once durable
/// })
/// ```
public struct WriteSubmission<T: Sendable>: Sendable {
    /// Runs on the writer, at the request's revision, in the batch's transaction.
    public var body: @Sendable (inout WriteTransaction) throws -> T
    /// What a throwing body leaves behind.
    public var rollback: WriteRollback
    /// Who is writing: decides where the request commits.
    public var origin: WriteOrigin
    /// Called exactly once, when the request's fate is known: after its
    /// batch committed (or failed), or at once when the body threw.
    public var completion: @Sendable (Result<Committed<T>, any Error>) -> Void

    public init(
        _ body: @escaping @Sendable (inout WriteTransaction) throws -> T, rollback: WriteRollback = .savepoint,
        origin: WriteOrigin, completion: @escaping @Sendable (Result<Committed<T>, any Error>) -> Void
    ) {
        self.body = body
        self.rollback = rollback
        self.origin = origin
        self.completion = completion
    }
}
