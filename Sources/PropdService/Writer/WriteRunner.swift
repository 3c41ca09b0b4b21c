import Logging
import PropdStore

/// What a write's body runs with on the writer: the engine's state under
/// its lock, the timer to arm after the body, the logger its recomputations
/// are reported to.
///
/// A queued write holds this rather than the service (``SetWrite``): the
/// service is weakly referenced (by its timer, by commands' answers), and
/// each retain and release of an object that is takes the runtime's slower
/// side-table path (with the service held, the slow paths took 2.5% of the
/// daemon's samples under the kit's pipelining client; 1.1% since).
final class WriteRunner: Sendable {
    let engine: EngineLock
    let timers: TimerWakeup
    let logger: Logger

    init(engine: EngineLock, timers: TimerWakeup, logger: Logger) {
        self.engine = engine
        self.timers = timers
        self.logger = logger
    }

    /// Runs `body` on the writer, in the request's transaction, with the
    /// engine: rebuilt first when an earlier body changed it and was rolled
    /// back (see ``EngineState``), its recomputations reported after, and the
    /// timer armed for what is pending whatever the body does (even throw: a
    /// timer that found nothing due).
    func run<T>(
        _ transaction: inout WriteTransaction, _ body: (inout WriteTransaction, inout EngineState) throws -> T
    ) throws -> T {
        try engine.withLock { state in
            defer { timers.arm(state.engine.nextDeadline, clock: state.clock) }
            try state.resynchronize(for: transaction)
            let result = try body(&transaction, &state)
            state.reportRecomputations(logger)
            return result
        }
    }
}
