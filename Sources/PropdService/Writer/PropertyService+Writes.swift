import PropdBindings
public import PropdCore
public import PropdStore

/// A write request, as the server hands it to the writer.
public enum WriteOperation: Sendable {
    /// `Set`: every key atomically as one revision; `expect` maps keys to the
    /// revision they must still have (0: must not exist). With `ttl`
    /// (milliseconds) every key expires that long after the write; without
    /// it every key is permanent.
    case set([Key: JSONValue], expect: [Key: Revision], ttl: Int64? = nil)
    /// `Delete`: every key, and every non-derived key matching `patterns`,
    /// atomically as one revision. When that is no key at all, nothing is
    /// written and the answer is the current revision. A matched key for
    /// which `writable` is false fails the call with `permissionDenied`.
    case delete(
        [Key], expect: [Key: Revision], patterns: [KeyPattern] = [], writable: @Sendable (Key) -> Bool = { _ in true })
    /// `Bind`: declares or replaces the binding of a key. `authorize` sees
    /// what the binding would read before anything is written, and may refuse it.
    /// With `state` (a dump's operator state) the binding continues from it
    /// instead of evaluating, and the key keeps its value.
    case bind(
        Key, expression: String, state: JSONValue? = nil,
        authorize: @Sendable (BindingReach) throws(ServiceError) -> Void)
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

/// Thrown by a Delete whose patterns matched nothing (and which named no
/// key): it consumes no revision, and answers the current one.
struct NothingToDelete: Error {
    var current: Revision
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
    /// - Parameter origin: who is writing (an event loop, and whether the
    ///   call is alone on its connection); the store decides from it where
    ///   and when the write commits.
    public func submit(
        _ operation: WriteOperation, from origin: WriteOrigin,
        completion: @escaping @Sendable (Result<WriteOutcome, ServiceError>) -> Void
    ) {
        switch operation {
        // Set and Delete check everything (derived keys, expectations, missing
        // keys) before their first write, so they need no savepoint.
        case .set(let values, let expect, let ttl):
            // One object for the writer (see SetWrite), not a submission's three.
            store.submit(
                SetWrite(values, expect: expect, ttl: ttl, runner: runner, completion: completion),
                rollback: .validatesFirst, origin: origin)
        case .delete(let keys, let expect, let patterns, let writable):
            let body = Self.deleteBody(keys, expect: expect, patterns: patterns, writable: writable)
            submit(body, rollback: .validatesFirst, from: origin) { result in
                if case .failure(let nothing as NothingToDelete) = result {
                    return completion(.success(WriteOutcome(revision: nothing.current)))
                }
                completion(Self.outcome(result))
            }
        case .bind(let key, let expression, let state, let authorize):
            let body = Self.bindBody(key, expression: expression, state: state, authorize: authorize)
            submit(body, from: origin) { result in
                completion(Self.outcome(result).map { outcome in
                    var outcome = outcome
                    if case .success(let committed) = result { outcome.sources = committed.value }
                    return outcome
                })
            }
        case .unbind(let key):
            submit(Self.unbindBody(key), from: origin) { completion(Self.outcome($0)) }
        }
    }

    /// ``submit(_:from:completion:)`` awaited.
    @discardableResult
    public func perform(_ operation: WriteOperation) async throws(ServiceError) -> WriteOutcome {
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<WriteOutcome, ServiceError>, Never>) in
            // Unsafe continuation: `submit` calls its completion exactly once.
            submit(operation, from: .task) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// `Set`, awaited. See ``WriteOperation/set(_:expect:ttl:)``.
    public func set(_ values: [Key: JSONValue], expect: [Key: Revision] = [:], ttl: Int64? = nil)
        async throws(ServiceError) -> Revision
    {
        try await perform(.set(values, expect: expect, ttl: ttl)).revision
    }

    /// `Delete`, awaited.
    public func delete(_ keys: [Key], expect: [Key: Revision] = [:]) async throws(ServiceError) -> Revision {
        try await perform(.delete(keys, expect: expect)).revision
    }

    /// `Bind`, awaited: validated first (parse, sources, cycles), persisted,
    /// and evaluated at once when its sources have values.
    public func bind(
        _ key: Key, expression: String, state: JSONValue? = nil,
        authorize: @escaping @Sendable (BindingReach) throws(ServiceError) -> Void = { _ in }
    ) async throws(ServiceError) -> (revision: Revision, sources: [Key]) {
        let outcome = try await perform(.bind(key, expression: expression, state: state, authorize: authorize))
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

    /// The body of a Set (see ``submit(_:from:completion:)``).
    static func setBody(
        _ values: [Key: JSONValue], expect: [Key: Revision], ttl: Int64?,
        _ transaction: inout WriteTransaction, _ state: inout EngineState
    ) throws {
        for key in values.keys where state.isDerived(key) { throw ServiceError.keyIsDerived(key.rawValue) }
        try openSavepointIfPropagating(from: values.keys, &transaction, state)
        guard let ttl else {
            try WriteRequest(set: values, expect: expect).apply(to: &transaction)
            // Without ttl a key is permanent again.
            state.changed(at: transaction.revision)
            state.engine.expire(values.keys, at: nil)
            try propagate(&transaction, &state)
            return
        }
        let deadline = state.clock.now().advanced(by: .milliseconds(ttl))
        try WriteRequest(set: values, expect: expect).apply(to: &transaction, expires: deadline.milliseconds)
        state.changed(at: transaction.revision)
        state.engine.expire(values.keys, at: deadline)
        try propagate(&transaction, &state)
    }

    /// A Set or Delete checks everything it can before its first write and
    /// runs without a savepoint (``WriteRollback/validatesFirst``), but when
    /// a key it changes feeds bindings, the propagation after its writes
    /// can still refuse it (more than `max-derived-per-revision`
    /// recomputations): it is then rolled back alone rather than with the
    /// requests of its batch.
    static func openSavepointIfPropagating(
        from keys: some Sequence<Key>, _ transaction: inout WriteTransaction, _ state: EngineState
    ) throws {
        if keys.contains(where: state.engine.mayPropagate(from:)) { try transaction.openSavepoint() }
    }

    static func deleteBody(
        _ keys: [Key], expect: [Key: Revision], patterns: [KeyPattern] = [],
        writable: @escaping @Sendable (Key) -> Bool = { _ in true }
    ) -> Body<Void> {
        // A key named twice is deleted once.
        var seen: Set<Key> = []
        let named = keys.filter { seen.insert($0).inserted }
        return { transaction, state in
            var keys = named
            if !patterns.isEmpty {
                var all = Set(named)
                for pattern in patterns {
                    for key in try transaction.keys(matching: pattern)
                    where !state.isDerived(key) && all.insert(key).inserted {
                        guard writable(key) else { throw ServiceError.permissionDenied(key.rawValue) }
                        keys.append(key)
                    }
                }
                guard !keys.isEmpty else { throw NothingToDelete(current: Revision(transaction.revision.rawValue - 1)) }
            }
            for key in keys where state.isDerived(key) { throw ServiceError.keyIsDerived(key.rawValue) }
            try openSavepointIfPropagating(from: keys, &transaction, state)
            // Every key must exist before the first is deleted: the body runs
            // without a savepoint, so it may not fail half-way.
            for key in keys where try transaction.revision(of: key) == .none {
                let expected = expect[key]
                if let expected, expected != .none { throw StoreError.revisionMismatch(key: key, expected: expected, actual: .none) }
                throw ServiceError.noSuchKey(key.rawValue)
            }
            try WriteRequest(delete: keys, expect: expect).apply(to: &transaction)
            state.changed(at: transaction.revision)
            state.engine.expire(keys, at: nil)
            try propagate(&transaction, &state)
        }
    }

    static func bindBody(
        _ key: Key, expression: String, state: JSONValue?,
        authorize: @escaping @Sendable (BindingReach) throws(ServiceError) -> Void
    ) -> Body<[Key]> {
        let saved = state
        return { transaction, state in
            do {
                let check = try state.engine.check(key: key, expression: expression)
                try authorize(BindingReach(sources: check.sources, followsKeys: check.followsKeys))
            } catch let error as BindingError {
                throw error.serviceError
            }
            let sources = try declare(key, expression: expression, restoring: saved, in: &transaction, &state)
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
    static func propagate(_ transaction: inout WriteTransaction, _ state: inout EngineState) throws {
        let primary = transaction.changes
        state.changed(at: transaction.revision)
        let propagation = state.engine.propagate(primary) { key in (try? transaction.property(key))?.value }
        try propagation.apply(to: &transaction)
    }

    /// - Parameter saved: operator state to continue from instead of evaluating.
    static func declare(
        _ key: Key, expression: String, restoring saved: JSONValue? = nil,
        in transaction: inout WriteTransaction, _ state: inout EngineState
    ) throws -> [Key] {
        if state.commands.keeps(key) { throw ServiceError.keyIsDerived(key.rawValue) }
        let declaration: Declaration
        do {
            if let saved {
                declaration = try state.engine.declare(key: key, expression: expression, restoring: saved)
            } else {
                declaration = try state.engine.declare(key: key, expression: expression) { key in
                    (try? transaction.property(key))?.value
                }
            }
        } catch {
            throw error.serviceError
        }
        state.changed(at: transaction.revision)
        // A derived key does not expire.
        state.engine.expire(CollectionOfOne(key), at: nil)
        try transaction.makePermanent(key)
        try transaction.putBinding(key: key, expression: expression, sources: declaration.sources)
        try transaction.declareDerived(key)
        try transaction.removeBindingState(key)
        try declaration.propagation.apply(to: &transaction)
        if let fresh = state.engine.state(of: key) { try transaction.putBindingState(key, fresh) }
        if saved != nil, let message = state.engine.binding(of: key)?.error {
            // The saved error state: the key keeps its value and shows the error.
            try transaction.setError(key, message)
        }
        return declaration.sources
    }

    static func undeclare(_ key: Key, in transaction: inout WriteTransaction, _ state: inout EngineState) throws {
        if state.commands.keeps(key) { throw ServiceError.keyIsDerived(key.rawValue) }
        guard state.engine.isDerived(key) else { throw ServiceError.noSuchKey(key.rawValue) }
        state.changed(at: transaction.revision)
        state.engine.remove(key: key)
        try transaction.removeBinding(key)
        try transaction.removeBindingState(key)
        guard let property = try transaction.property(key) else { return }
        if let value = property.value {
            // A plain property has no evaluation error: the kept value is set
            // again, which clears it and tells subscribers.
            if property.error != nil { try transaction.set(key, value) }
        } else {
            try transaction.delete(key)
        }
    }
}
