public import PropdCore

/// A client's Set or Delete: keys to set, keys to delete, and expectations,
/// applied atomically as one revision.
///
/// ```swift
/// // Set only if room.temp is still at revision 7 and room.mode does not exist:
/// let request = WriteRequest(set: [temp: 22, mode: "eco"], expect: [temp: 7, mode: .none])
/// try await store.write(request)
/// ```
public struct WriteRequest: Sendable, Hashable {
    public var set: [Key: JSONValue]
    public var delete: [Key]
    /// Key -> the revision it must still have; ``Revision/none`` (0) = must not exist.
    public var expect: [Key: Revision]

    public init(set: [Key: JSONValue] = [:], delete: [Key] = [], expect: [Key: Revision] = [:]) {
        self.set = set
        self.delete = delete
        self.expect = expect
    }

    /// Checks the expectations, then deletes and sets. Throws
    /// ``StoreError/revisionMismatch(key:expected:actual:)`` for the first
    /// failed expectation (in key order) and ``StoreError/noSuchKey(_:)`` for
    /// a missing key to delete; either way nothing is written.
    ///
    /// - Parameter expires: when every key set expires (milliseconds since
    ///   the epoch); `nil` makes them permanent.
    public func apply(to transaction: inout WriteTransaction, expires: Int64? = nil) throws(StoreError) {
        for (key, expected) in expect.sorted(by: { $0.key < $1.key }) {
            let actual = try transaction.revision(of: key)
            if actual != expected { throw .revisionMismatch(key: key, expected: expected, actual: actual) }
        }
        for key in delete {
            try transaction.delete(key)
        }
        guard set.count > 1 else {
            // One key (the usual Set): nothing to order, nothing to copy.
            for (key, value) in set { try transaction.set(key, value, expires: expires) }
            return
        }
        // Sorted so that the change order (and so the event order) is stable.
        for (key, value) in set.sorted(by: { $0.key < $1.key }) {
            try transaction.set(key, value, expires: expires)
        }
    }
}

extension WriteRequest {
    /// Whether ``apply(to:)`` can fail after its first write: only a second
    /// delete can (its key may be missing). Expectations are checked before
    /// anything is written, and sets fail only when the storage does (which
    /// abandons the whole batch anyway).
    var canFailAfterWriting: Bool { delete.count > 1 }
}

extension PropertyStore {
    /// Applies a plain request as one revision and returns its change set.
    /// Runs without a savepoint of its own unless it can fail half-way.
    @discardableResult
    public func write(_ request: WriteRequest) async throws(StoreError) -> ChangeSet {
        do {
            return try await write(
                { transaction in try request.apply(to: &transaction) },
                rollback: request.canFailAfterWriting ? .savepoint : .validatesFirst
            ).changeSet
        } catch {
            throw StoreError(operating: error, path: path)
        }
    }
}
