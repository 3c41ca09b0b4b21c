extension PropertyStore {
    /// ``write(_:)`` without a task: queues `body` now and calls `completion`
    /// (on the writer, exactly once) when the request's fate is known.
    ///
    /// Requests submitted one after another from one thread run in that
    /// order, which `write` from separate tasks cannot promise: a server uses
    /// this to keep a connection's pipelined writes in the client's order.
    public func submit<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction) throws -> T,
        completion: @escaping @Sendable (Result<Committed<T>, any Error>) -> Void
    ) {
        let job = WriteJob(
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
        groupCommit.submit(job)
    }
}
