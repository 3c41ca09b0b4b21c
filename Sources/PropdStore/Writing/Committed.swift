public import PropdCore

/// What a successful ``PropertyStore/write(_:)`` returns once its batch is
/// durable: the body's result and everything it changed, at its revision.
public struct Committed<Value> {
    /// What the body returned.
    public var value: Value
    /// The request's revision and its property changes, to publish as events.
    public var changeSet: ChangeSet

    /// The revision the request became.
    public var revision: Revision { changeSet.revision }

    public init(value: Value, changeSet: ChangeSet) {
        self.value = value
        self.changeSet = changeSet
    }
}

extension Committed: Sendable where Value: Sendable {}

/// Figures of the group-commit writer since the store was opened.
public struct WriteStatistics: Sendable, Hashable {
    /// SQLite transactions committed (one fsync each under `full`).
    public var batches: Int = 0
    /// Of ``batches``, those committed on the submitter's thread (an event
    /// loop, at the end of its tick) rather than the writer's.
    public var inlineBatches: Int = 0
    /// Write requests committed (each one revision).
    public var requests: Int = 0
    /// Write requests whose body threw (rolled back alone).
    public var rejected: Int = 0
    /// Batches abandoned because the storage failed (disk full, I/O error).
    public var failedBatches: Int = 0
    /// The most requests committed in one transaction.
    public var largestBatch: Int = 0
    /// Checkpoints of the write-ahead log the writer ran between batches,
    /// after answering the batch that filled the log (not counting
    /// ``PropertyStore/checkpoint()``, the one at a clean stop).
    public var backgroundCheckpoints: Int = 0

    public init() {}
}
