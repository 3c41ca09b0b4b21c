import PropdBindings
public import PropdCore
import PropdStore

/// A write request, as the server hands it to the writer.
public enum WriteOperation: Sendable {
    /// `Set`: every key atomically as one revision; `expect` maps keys to the
    /// revision they must still have (0: must not exist).
    case set([Key: JSONValue], expect: [Key: Revision])
    /// `Delete`: every key atomically as one revision.
    case delete([Key], expect: [Key: Revision])
    /// `Bind`: declares or replaces the binding of a key. `authorize` sees
    /// what the binding would read before anything is written, and may refuse it.
    case bind(Key, expression: String, authorize: @Sendable (BindingReach) throws(ServiceError) -> Void)
    /// `Unbind`: removes a binding; the key keeps its last value.
    case unbind(Key)
}

/// What a binding would read, for an access check before it is declared.
public struct BindingReach: Sendable, Hashable {
    /// The keys the expression names outside closures.
    public var sources: [Key]
    /// Whether it follows keys named at run time (`flatMap { key(…) }`), so
    /// it may read keys beyond ``sources``.
    public var followsKeys: Bool
}

/// What a committed write request answers.
public struct WriteOutcome: Sendable, Hashable {
    public var revision: Revision
    /// The binding's sources, for `bind`.
    public var sources: [Key] = []
}

extension PropertyService {
    /// Queues `operation` now and calls `completion` once it is durable (or
    /// refused). Operations submitted one after another from one thread
    /// commit in that order, so a connection's pipelined writes keep the
    /// client's order; no task is created on the way.
    ///
    /// - Parameter deferred: queue it without waking the writer; the caller
    ///   promises to call ``commitPending()`` soon (an event loop does at the
    ///   end of its tick, and then commits and answers without a thread hop).
    public func submit(
        _ operation: WriteOperation, deferred: Bool = false,
        completion: @escaping @Sendable (Result<WriteOutcome, ServiceError>) -> Void
    ) {
        submit(operation, deferred: deferred, resumesTask: false, completion: completion)
    }

    /// - Parameter resumesTask: `completion` resumes a task (see `PropertyStore.submit`).
    func submit(
        _ operation: WriteOperation, deferred: Bool, resumesTask: Bool,
        completion: @escaping @Sendable (Result<WriteOutcome, ServiceError>) -> Void
    ) {
        switch operation {
        // Set and Delete check everything (derived keys, expectations, missing
        // keys) before their first write, so they need no savepoint.
        case .set(let values, let expect):
            submit(Self.setBody(values, expect: expect), validatesFirst: true, deferred: deferred, resumesTask: resumesTask) {
                completion(Self.outcome($0))
            }
        case .delete(let keys, let expect):
            submit(Self.deleteBody(keys, expect: expect), validatesFirst: true, deferred: deferred, resumesTask: resumesTask) {
                completion(Self.outcome($0))
            }
        case .bind(let key, let expression, let authorize):
            let body = Self.bindBody(key, expression: expression, authorize: authorize)
            submit(body, deferred: deferred, resumesTask: resumesTask) { result in
                completion(Self.outcome(result).map { outcome in
                    var outcome = outcome
                    if case .success(let committed) = result { outcome.sources = committed.value }
                    return outcome
                })
            }
        case .unbind(let key):
            submit(Self.unbindBody(key), deferred: deferred, resumesTask: resumesTask) { completion(Self.outcome($0)) }
        }
    }

    /// ``submit(_:completion:)`` awaited.
    @discardableResult
    public func perform(_ operation: WriteOperation) async throws(ServiceError) -> WriteOutcome {
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<WriteOutcome, ServiceError>, Never>) in
            // Unsafe continuation: `submit` calls its completion exactly once.
            submit(operation, deferred: false, resumesTask: true) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// `Set`, awaited. See ``WriteOperation/set(_:expect:)``.
    public func set(_ values: [Key: JSONValue], expect: [Key: Revision] = [:]) async throws(ServiceError) -> Revision {
        try await perform(.set(values, expect: expect)).revision
    }

    /// `Delete`, awaited.
    public func delete(_ keys: [Key], expect: [Key: Revision] = [:]) async throws(ServiceError) -> Revision {
        try await perform(.delete(keys, expect: expect)).revision
    }

    /// `Bind`, awaited: validated first (parse, sources, cycles), persisted,
    /// and evaluated at once when its sources have values.
    public func bind(
        _ key: Key, expression: String,
        authorize: @escaping @Sendable (BindingReach) throws(ServiceError) -> Void = { _ in }
    ) async throws(ServiceError) -> (revision: Revision, sources: [Key]) {
        let outcome = try await perform(.bind(key, expression: expression, authorize: authorize))
        return (outcome.revision, outcome.sources)
    }

    /// `Unbind`, awaited. A derived key that never produced a value is deleted.
    /// - Throws: `noSuchKey` when `key` has no binding.
    public func unbind(_ key: Key) async throws(ServiceError) -> Revision {
        try await perform(.unbind(key)).revision
    }

    static func outcome<T>(_ result: Result<Committed<T>, any Error>) -> Result<WriteOutcome, ServiceError> {
        result.map { WriteOutcome(revision: $0.revision) }.mapError(ServiceError.from)
    }

    // MARK: The bodies

    typealias Body<T> = @Sendable (inout WriteTransaction, inout EngineState) throws -> T

    static func setBody(_ values: [Key: JSONValue], expect: [Key: Revision]) -> Body<Void> {
        { transaction, state in
            for key in values.keys where state.isDerived(key) { throw ServiceError.keyIsDerived(key.rawValue) }
            try WriteRequest(set: values, expect: expect).apply(to: &transaction)
            try propagate(&transaction, &state)
        }
    }

    static func deleteBody(_ keys: [Key], expect: [Key: Revision]) -> Body<Void> {
        // A key named twice is deleted once.
        var seen: Set<Key> = []
        let keys = keys.filter { seen.insert($0).inserted }
        return { transaction, state in
            for key in keys where state.isDerived(key) { throw ServiceError.keyIsDerived(key.rawValue) }
            // Every key must exist before the first is deleted: the body runs
            // without a savepoint, so it may not fail half-way.
            for key in keys where try transaction.revision(of: key) == .none {
                let expected = expect[key]
                if let expected, expected != .none { throw StoreError.revisionMismatch(key: key, expected: expected, actual: .none) }
                throw ServiceError.noSuchKey(key.rawValue)
            }
            try WriteRequest(delete: keys, expect: expect).apply(to: &transaction)
            try propagate(&transaction, &state)
        }
    }

    static func bindBody(
        _ key: Key, expression: String, authorize: @escaping @Sendable (BindingReach) throws(ServiceError) -> Void
    ) -> Body<[Key]> {
        { transaction, state in
            do {
                let check = try state.engine.check(key: key, expression: expression)
                try authorize(BindingReach(sources: check.sources, followsKeys: check.followsKeys))
            } catch let error as BindingError {
                throw error.serviceError
            }
            let sources = try declare(key, expression: expression, in: &transaction, &state)
            // A client's binding is the client's: a later reload of the files
            // no longer removes it (though a file declaring the key again wins).
            try transaction.unmarkFileBinding(key)
            return sources
        }
    }

    static func unbindBody(_ key: Key) -> Body<Void> {
        { transaction, state in try undeclare(key, in: &transaction, &state) }
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
        if state.commands.keeps(key) { throw ServiceError.keyIsDerived(key.rawValue) }
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
        if state.commands.keeps(key) { throw ServiceError.keyIsDerived(key.rawValue) }
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
