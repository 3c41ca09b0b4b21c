import PropdCore
import Synchronization

/// A ``WriteSubmission`` on the writer's queue: the submission's body and
/// completion, and the body's value from its run until the batch's outcome.
///
/// The value crosses from the writer's `run` to `finish`, which may run in
/// a task the writer starts: it is kept behind a mutex, taken once each way
/// (only writes that return a value come here: see ``SubmittedVoidWrite``).
final class SubmittedWrite<T: Sendable>: QueuedWrite {
    private let body: @Sendable (inout WriteTransaction) throws -> T
    private let completion: @Sendable (Result<Committed<T>, any Error>) -> Void
    private let value = Mutex<T?>(nil)

    init(_ submission: WriteSubmission<T>) {
        body = submission.body
        completion = submission.completion
    }

    func run(_ transaction: inout WriteTransaction) -> Bool {
        do {
            let result = try body(&transaction)
            value.withLock { $0 = result }
            return true
        } catch {
            completion(.failure(error))
            return false
        }
    }

    func finish(_ outcome: Result<ChangeSet, any Error>) {
        switch (outcome, value.withLock { $0 }) {
        case (.success(let changeSet), let value?): completion(.success(Committed(value: value, changeSet: changeSet)))
        case (.failure(let error), _): completion(.failure(error))
        // Never: the writer finishes only requests whose run returned true.
        case (.success, nil): completion(.failure(StoreError.storage(code: -1, message: "a write finished before it ran")))
        }
    }

    func fail(_ error: any Error) {
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

    func finish(_ outcome: Result<ChangeSet, any Error>) {
        submission.completion(outcome.map { Committed(value: (), changeSet: $0) })
    }

    func fail(_ error: any Error) {
        submission.completion(.failure(error))
    }
}
