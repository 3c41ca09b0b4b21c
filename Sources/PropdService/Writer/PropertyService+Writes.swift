import PropdBindings
public import PropdCore
import PropdStore

extension PropertyService {
    /// `Set`: writes every key atomically as one new revision, then
    /// recomputes what depends on them in the same revision.
    ///
    /// - Throws: `keyIsDerived` for a key a binding computes,
    ///   `revisionMismatch` when an expectation fails (nothing is written).
    public func set(_ values: [Key: JSONValue], expect: [Key: Revision] = [:]) async throws(ServiceError) -> Revision {
        try await commit { transaction, state in
            for key in values.keys where state.engine.isDerived(key) { throw ServiceError.keyIsDerived(key.rawValue) }
            try WriteRequest(set: values, expect: expect).apply(to: &transaction)
            try Self.propagate(&transaction, &state)
        }.revision
    }

    /// `Delete`: deletes every key atomically as one new revision.
    ///
    /// - Throws: `noSuchKey` for a missing key, `keyIsDerived`, `revisionMismatch`.
    public func delete(_ keys: [Key], expect: [Key: Revision] = [:]) async throws(ServiceError) -> Revision {
        try await commit { transaction, state in
            for key in keys where state.engine.isDerived(key) { throw ServiceError.keyIsDerived(key.rawValue) }
            try WriteRequest(delete: keys, expect: expect).apply(to: &transaction)
            try Self.propagate(&transaction, &state)
        }.revision
    }

    /// `Bind`: declares or replaces the binding of `key`, validated first
    /// (parse, sources, cycles), persisted, and evaluated at once when its
    /// sources have values.
    ///
    /// - Parameter authorize: sees the binding's sources before anything is
    ///   written, and may refuse them (the server checks the declarer may read them).
    public func bind(
        _ key: Key, expression: String,
        authorize: @escaping @Sendable ([Key]) throws(ServiceError) -> Void = { _ in }
    ) async throws(ServiceError) -> (revision: Revision, sources: [Key]) {
        let committed = try await commit { transaction, state in
            do {
                try authorize(try state.engine.validate(key: key, expression: expression))
            } catch let error as BindingError {
                throw error.serviceError
            }
            let sources = try Self.declare(key, expression: expression, in: &transaction, &state)
            // A client's binding is the client's: a later reload of the files
            // no longer removes it (though a file declaring the key again wins).
            try transaction.unmarkFileBinding(key)
            return sources
        }
        return (committed.revision, committed.value)
    }

    /// `Unbind`: removes the binding; the key keeps its last value as a
    /// plain property. A derived key that never produced a value is deleted.
    ///
    /// - Throws: `noSuchKey` when `key` has no binding.
    public func unbind(_ key: Key) async throws(ServiceError) -> Revision {
        try await commit { transaction, state in
            try Self.undeclare(key, in: &transaction, &state)
        }.revision
    }

    // MARK: Bodies shared by several writes

    /// Runs the engine on the changes the body made so far and writes what it derives.
    static func propagate(_ transaction: inout WriteTransaction, _ state: inout EngineState) throws(StoreError) {
        let primary = transaction.changes
        state.changed(at: transaction.revision)
        let propagation = state.engine.propagate(primary) { key in (try? transaction.property(key))?.value }
        try propagation.apply(to: &transaction)
    }

    static func declare(
        _ key: Key, expression: String, in transaction: inout WriteTransaction, _ state: inout EngineState
    ) throws -> [Key] {
        let declaration: Declaration
        do {
            declaration = try state.engine.declare(key: key, expression: expression) { key in
                (try? transaction.property(key))?.value
            }
        } catch {
            throw error.serviceError
        }
        state.changed(at: transaction.revision)
        try transaction.putBinding(key: key, expression: expression, sources: declaration.sources)
        try transaction.declareDerived(key)
        try transaction.removeBindingState(key)
        try declaration.propagation.apply(to: &transaction)
        if let fresh = state.engine.state(of: key) { try transaction.putBindingState(key, fresh) }
        return declaration.sources
    }

    static func undeclare(_ key: Key, in transaction: inout WriteTransaction, _ state: inout EngineState) throws {
        guard state.engine.isDerived(key) else { throw ServiceError.noSuchKey(key.rawValue) }
        state.changed(at: transaction.revision)
        state.engine.remove(key: key)
        try transaction.removeBinding(key)
        try transaction.removeBindingState(key)
        if let property = try transaction.property(key), property.value == nil {
            try transaction.delete(key)
        }
    }
}
