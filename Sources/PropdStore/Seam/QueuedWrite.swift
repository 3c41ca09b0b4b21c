public import PropdCore

/// A write request as a store's writer sees it, whatever its body returns:
/// the body, who is waiting, and how to tell them, in one object.
///
/// A ``WriteSubmission`` becomes one (its body's and its completion's
/// contexts and the queued object: three allocations per request). A
/// submitter that writes its own, as the service does for a `Set`, hands
/// the writer a single object per request
/// (``PropertyStorage/submit(_:rollback:origin:)``).
public protocol QueuedWrite: AnyObject, Sendable {
    /// Runs the body inside the request's revision (and savepoint, if any).
    /// Returns false when the body threw: its caller has then been told.
    func run(_ transaction: inout WriteTransaction) -> Bool
    /// Tells the caller the fate of the batch whose run returned true.
    /// Called once, after the batch committed or failed.
    func finish(_ outcome: Result<ChangeSet, any Error>)
    /// Fails a request whose body never ran (its batch was abandoned
    /// first, or the store was closed).
    func fail(_ error: any Error)
}
