import PropdCore
import PropdStore

/// A `Set` on its way to the writer: its values, what runs them and who
/// is waiting, in the one object the store queues.
///
/// A Set is nearly every write, and built as a ``WriteSubmission`` it would
/// cost three allocations on its event loop, each freed on the writer's thread:
/// the body's closure context, the completion's, and the store's queued
/// request around them.
///
/// It holds the service's ``WriteRunner``, not its engine, timers and
/// logger: one reference retained on the loop and released on the writer's
/// thread rather than five (a logger holds two), each an atomic operation
/// on a count the other thread keeps touching too.
final class SetWrite: QueuedWrite {
    private let values: [Key: JSONValue]
    private let expect: [Key: Revision]
    private let ttl: Int64?
    private let runner: WriteRunner
    private let completion: @Sendable (Result<WriteOutcome, ServiceError>) -> Void

    init(
        _ values: [Key: JSONValue], expect: [Key: Revision], ttl: Int64?, runner: WriteRunner,
        completion: @escaping @Sendable (Result<WriteOutcome, ServiceError>) -> Void
    ) {
        self.values = values
        self.expect = expect
        self.ttl = ttl
        self.runner = runner
        self.completion = completion
    }

    func run(_ transaction: inout WriteTransaction) -> Bool {
        do {
            try runner.run(&transaction) { transaction, state in
                try PropertyService.setBody(values, expect: expect, ttl: ttl, &transaction, &state)
            }
            return true
        } catch {
            completion(.failure(ServiceError.from(error)))
            return false
        }
    }

    func finish(_ outcome: Result<ChangeSet, any Error>) {
        completion(outcome.map { WriteOutcome(revision: $0.revision) }.mapError(ServiceError.from))
    }

    func fail(_ error: any Error) {
        completion(.failure(ServiceError.from(error)))
    }
}
