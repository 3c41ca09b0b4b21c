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
    public func submit<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction) throws -> T,
        needsSavepoint: Bool = true,
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
        groupCommit.submit(job)
    }
}
