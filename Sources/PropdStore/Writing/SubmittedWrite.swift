import PropdCore

/// A ``WriteSubmission`` on the writer's queue: the submission's body and
/// completion, and the body's value from its run until the batch's outcome.
///
/// `@unchecked Sendable` is sound: `value` is the only mutable state. It is
/// written by `run`, which the writer calls once, inside the batch's commit,
/// and read by `finish`, which the same writer calls after that commit has
/// ended: on its own thread, or in a task it starts afterwards (task
/// creation orders the write before the read). `fail` never reads it.
final class SubmittedWrite<T: Sendable>: QueuedWrite, @unchecked Sendable {
    private let body: @Sendable (inout WriteTransaction) throws -> T
    private let completion: @Sendable (Result<Committed<T>, any Error>) -> Void
    private var value: T?

    init(_ submission: WriteSubmission<T>) {
        body = submission.body
        completion = submission.completion
    }

    func run(_ transaction: inout WriteTransaction) -> Bool {
        do {
            value = try body(&transaction)
            return true
        } catch {
            completion(.failure(error))
            return false
        }
    }

    func finish(_ outcome: Result<ChangeSet, StoreError>) {
        switch (outcome, value) {
        case (.success(let changeSet), let value?): completion(.success(Committed(value: value, changeSet: changeSet)))
        case (.failure(let error), _): completion(.failure(error))
        // Never: the writer finishes only requests whose run returned true.
        case (.success, nil): completion(.failure(StoreError.storage(code: -1, message: "a write finished before it ran")))
        }
    }

    func fail(_ error: StoreError) {
        completion(.failure(error))
    }
}

/// A ``WriteSubmission`` whose body returns nothing: Set, Delete, Unbind
/// and timers, nearly every write. Not generic, unlike ``SubmittedWrite``:
/// called through ``QueuedWrite``, a generic class's methods run
/// unspecialized and look up generic metadata for every request (its
/// value, its `Result`), about as much of the writer's thread as the
/// allocations one object per request saves.
final class SubmittedVoidWrite: QueuedWrite {
    /// Kept whole: its closures copied out to properties typed for `Void`
    /// would each be wrapped in a reabstraction thunk, an allocation apiece.
    private let submission: WriteSubmission<Void>

    init(_ submission: WriteSubmission<Void>) {
        self.submission = submission
    }

    func run(_ transaction: inout WriteTransaction) -> Bool {
        do {
            try submission.body(&transaction)
            return true
        } catch {
            submission.completion(.failure(error))
            return false
        }
    }

    func finish(_ outcome: Result<ChangeSet, StoreError>) {
        submission.completion(outcome.map { Committed(value: (), changeSet: $0) }.mapError { $0 })
    }

    func fail(_ error: StoreError) {
        submission.completion(.failure(error))
    }
}
