import Logging
import PropdBindings
import PropdCore
import PropdStore

/// The binding engine as the writer owns it, with what it needs to stay in
/// step with the store.
///
/// The engine lives in memory and changes as write bodies run; the store is
/// the truth. A body that changed the engine and was then rolled back (its
/// own failure, or its whole batch failing to commit) leaves the engine ahead
/// of the store. That is detected without any extra bookkeeping: revisions
/// are handed out in order and reused after a rollback, so a body that gets a
/// revision at or below the last one that changed the engine knows the engine
/// saw something the store never kept, and rebuilds it from the store first.
struct EngineState {
    var engine: BindingEngine
    let clock: any BindingClock
    /// The revision of the last body that changed the engine.
    var lastChanged: Revision = .none
    /// What derived values may cost; kept here so a rebuilt engine gets them too.
    var limits: BindingLimits {
        didSet { engine.limits = limits }
    }
    /// The largest recomputation count already logged.
    var reportedRecomputations = 0
    /// The commands whose `CMD.executing` and `CMD.error` propd keeps.
    var commands = CommandNames()

    init(clock: any BindingClock, limits: BindingLimits = .defaults) {
        self.clock = clock
        self.limits = limits
        engine = BindingEngine(clock: clock)
        engine.limits = limits
    }

    /// Records that the body writing `revision` changed the engine.
    mutating func changed(at revision: Revision) {
        lastChanged = revision
    }

    /// Rebuilds the engine from what `transaction` sees when the engine may
    /// hold changes the store rolled back, or lack changes another writer
    /// made (a cluster's other nodes).
    mutating func resynchronize(for transaction: WriteTransaction) throws(StoreError) {
        guard lastChanged >= transaction.revision || transaction.spaceChangedElsewhere else { return }
        engine = BindingEngine(clock: clock)
        engine.limits = limits
        engine.restore(try transaction.allBindings())
        engine.restoreExpiries(try transaction.expiringKeys())
        commands = CommandNames(try transaction.commandNames())
        lastChanged = .none
    }
}

extension WriteTransaction {
    /// Every persisted binding with its operator state, as the engine restores them.
    func allBindings() throws(StoreError) -> [RestoredBinding] {
        let states = try bindingStates()
        return try bindingRecords().map { RestoredBinding(key: $0.key, expression: $0.expression, state: states[$0.key]) }
    }
}

extension PropertyStorage {
    /// Every persisted binding with its operator state, from the committed state.
    func allBindings() throws(StoreError) -> [RestoredBinding] {
        let states = try bindingStates()
        return try bindings().map { RestoredBinding(key: $0.key, expression: $0.expression, state: states[$0.key]) }
    }
}

extension Propagation {
    /// Writes the derived values, errors and operator states into the
    /// transaction, at its revision.
    /// - Throws: `limitExceeded` when the propagation stopped at the
    ///   recomputation bound: the whole write is refused.
    func apply(to transaction: inout WriteTransaction) throws {
        if overflowed {
            throw ServiceError.limitExceeded(limit: ServiceError.recomputationLimit, maximum: recomputations)
        }
        for key in expired where try transaction.revision(of: key) != .none {
            try transaction.delete(key)
        }
        for key in clearedErrors {
            try transaction.clearError(key)
        }
        for change in changes {
            switch change.kind {
            case .set(let value): try transaction.set(change.key, value)
            case .error(let message): try transaction.setError(change.key, message)
            case .delete: try transaction.delete(change.key)
            }
        }
        for update in states {
            try transaction.putBindingState(update.key, update.state)
        }
    }
}

extension BindingError {
    /// The contract's error for a refused binding.
    var serviceError: ServiceError {
        switch self {
        case .invalid(let message, let line, let column): return .bindingInvalid(message: message, line: line, column: column)
        case .cycle(let keys): return .bindingCycle(keys)
        }
    }
}

extension EngineState {
    /// Logs the largest number of derived keys one revision recomputed, each
    /// time it reaches a new power of two from 1,024 on: the cost one write
    /// can cause, against `max-derived-per-revision`.
    mutating func reportRecomputations(_ logger: Logger) {
        let largest = engine.largestRecomputation
        guard largest >= 1024, largest >= reportedRecomputations * 2 else { return }
        reportedRecomputations = largest
        logger.notice("largest derived recomputation of one revision so far",
            metadata: ["recomputations": "\(largest)", "limit": "\(limits.maxRecomputationsPerRevision)"])
    }
}
