public import Logging
public import PropdBindings
import PropdCore
public import PropdStore

/// propd's single writer and its readers: every write (Set, Delete, Bind,
/// Unbind, binding-file reloads, timers) runs through one ordered
/// pipeline — validate, run the binding engine on the change set, commit one
/// revision per request (group commit) — and every committed revision is
/// published to the subscriptions, in order, before its callers are answered.
///
/// ```swift
/// let service = try PropertyService(store: store, logger: logger)
/// let revision = try await service.set([try Key("room.temp"): 21.5])
/// let subscription = try await service.subscribe(try SubscriptionRequest(patterns: [.all]))
/// ```
///
/// Reads (`get`, `list`, `history`, `bindings`) go straight to the store's
/// WAL snapshots and never wait for writes.
public final class PropertyService: Sendable {
    /// Where properties live: ``PropertyStore`` (SQLite) today, reached only
    /// through the ``PropertyStorage`` seam.
    public let store: any PropertyStorage
    public let hub: SubscriptionHub
    let engine: EngineLock
    let timers = TimerWakeup()
    /// What write bodies run with (see ``WriteRunner``).
    let runner: WriteRunner
    /// Whether this process fires deadlines (see ``setFiresTimers(_:)``).
    let timerDuty: TimerDuty
    /// Command handlers and executions in flight (CONTRACT 6.2).
    let commands = CommandRegistry()
    let logger: Logger
    let startedAt = ContinuousClock.now
    /// The executions the last run left open, found at start (see
    /// ``endInterruptedExecutions()``).
    let interruptedExecutions: [CommandKeys]

    /// Opens the service on `store`: restores every persisted binding with
    /// its operator state (nothing is re-emitted), hooks the hub to the
    /// store's commits, and arms the timer for the pending deadlines (time
    /// operators and expiring keys). Executions the last run left open are
    /// found, and ended by ``endInterruptedExecutions()``.
    ///
    /// - Parameters:
    ///   - makeClock: where time operators read the time (the wall clock
    ///     unless a test injects another).
    ///   - firesTimers: whether this process fires deadlines from the start:
    ///     a cluster node starts without, until it wins the timer election
    ///     (``setFiresTimers(_:)``).
    public init(
        store: any PropertyStorage,
        hub: SubscriptionHub = SubscriptionHub(),
        makeClock: @Sendable () -> any BindingClock = { SystemBindingClock() },
        bindingLimits: BindingLimits = .defaults,
        firesTimers: Bool = true,
        logger: Logger
    ) throws(ServiceError) {
        self.store = store
        timerDuty = TimerDuty(holds: firesTimers)
        self.hub = hub
        self.logger = logger
        var state = EngineState(clock: makeClock(), limits: bindingLimits)
        let commandNames = try Self.storedCommands(store)
        state.commands = CommandNames(commandNames)
        commands.markRegistered(commandNames)
        interruptedExecutions = Self.openExecutions(of: commandNames, in: store)
        let restored: [RestoredBinding]
        do {
            restored = try store.allBindings()
        } catch {
            throw ServiceError(error)
        }
        for (key, failure) in state.engine.restore(restored) {
            logger.error("persisted binding cannot be restored", metadata: ["key": "\(key)", "reason": "\(failure)"])
        }
        do {
            // Keys whose deadline passed while the daemon was down fire as soon as the timer is armed.
            state.engine.restoreExpiries(try store.expiringKeys())
        } catch {
            throw ServiceError(error)
        }
        let deadline = state.engine.nextDeadline
        engine = EngineLock(state)
        runner = WriteRunner(engine: engine, timers: timers, logger: logger)
        store.onCommit { [hub] changeSets in hub.publish(changeSets) }
        // Revisions the hub will never get: no live subscriber can be given
        // every event, so each is ended as a slow one and resumes from history.
        store.onChangesSkipped { [hub, logger] revision in
            logger.warning(
                "the store skipped revisions; every subscription ends with SlowConsumer",
                metadata: ["resumedAt": "\(revision)"])
            hub.endAllAsSlowConsumers()
        }
        // What a subscriber (live, or just ended as too slow) may resume
        // from stays in history, so `since` loses nothing with any settings.
        store.retainHistory { [weak hub] in hub?.historyFloor() }
        timers.service = WeakService(self)
        timers.arm(deadline, clock: SystemBindingClock())
    }

    /// Stops the timers and ends every subscription. Writes already queued
    /// still commit; the store stays open for the caller to close.
    public func shutdown() {
        timers.cancel()
        commands.cancelTimers()
        hub.close()
    }

    /// Seconds since the service started.
    public var uptimeSeconds: Double {
        let elapsed = ContinuousClock.now - startedAt
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Queues `body` as one write request: on the writer, in the batch's
    /// transaction, through ``WriteRunner/run(_:_:)``. The one
    /// ``WriteSubmission`` of the request is built here (a Set is queued as
    /// a ``SetWrite`` instead, see ``submit(_:from:completion:)``); the
    /// store decides from its `origin` where and when it commits.
    @_specialize(where T == Void)
    func submit<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction, inout EngineState) throws -> T,
        rollback: WriteRollback = .savepoint,
        from origin: WriteOrigin,
        completion: @escaping @Sendable (Result<Committed<T>, any Error>) -> Void
    ) {
        store.submit(WriteSubmission(
            { [runner] transaction in try runner.run(&transaction, body) },
            rollback: rollback, origin: origin, completion: completion))
    }

    /// ``submit(_:rollback:from:completion:)`` awaited, with the body's own errors left as they are.
    func commitUnmapped<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction, inout EngineState) throws -> T
    ) async throws -> Committed<T> {
        try await withUnsafeThrowingContinuation { continuation in
            // Unsafe continuation: `submit` calls its completion exactly once.
            submit(body, from: .task) { continuation.resume(with: $0) }
        }
    }
}

extension PropertyService {
    /// What derived values may cost now.
    public var bindingLimits: BindingLimits { engine.withLock { $0.limits } }

    /// Changes what derived values may cost, from the next write on (a reload).
    public func setBindingLimits(_ limits: BindingLimits) {
        engine.withLock { $0.limits = limits }
    }

    /// The most derived keys one revision has recomputed since the start.
    public var largestRecomputation: Int { engine.withLock { $0.engine.largestRecomputation } }
}
