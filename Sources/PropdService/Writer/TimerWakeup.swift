import PropdBindings
import PropdCore
import Synchronization

/// A reference to the service that does not keep it alive, so the timer task
/// never outlives the daemon's service.
struct WeakService: Sendable {
    weak var service: PropertyService?
    init(_ service: PropertyService) { self.service = service }
}

/// The daemon's one timer: a single task sleeping until the engine's
/// earliest deadline (time operators and expiring keys alike), never one per
/// key. When it goes off, the writer fires everything due as one revision and
/// arms the timer again (see ``WakeupAlarm`` for why no deadline is lost).
final class TimerWakeup: Sendable {
    private struct State {
        var alarm = WakeupAlarm()
        var task: Task<Void, Never>?
        var stopped = false
        var service: WeakService?
    }

    private let state = Mutex(State())

    var service: WeakService? {
        get { state.withLock { $0.service } }
        set { state.withLock { $0.service = newValue } }
    }

    /// Makes sure the timer goes off at or before `deadline`.
    func arm(_ deadline: BindingInstant?, clock: any BindingClock) {
        guard let deadline else { return }
        let now = clock.now().milliseconds
        state.withLock { state in
            guard !state.stopped, let service = state.service else { return }
            guard case .start(let at, let generation) = state.alarm.arm(deadline.milliseconds) else { return }
            state.task?.cancel()
            // The clock reads whole milliseconds: one more makes sure the
            // deadline has passed when the task wakes.
            let delay = max(0, at - now) + 1
            state.task = Task {
                // This sleep is the timer itself.
                try? await Task.sleep(for: .milliseconds(delay))
                guard !Task.isCancelled, self.wentOff(generation) else { return }
                await service.service?.fireDueTimers()
            }
        }
    }

    private func wentOff(_ generation: UInt64) -> Bool {
        state.withLock { state in
            guard state.alarm.wentOff(generation) else { return false }
            state.task = nil
            return true
        }
    }

    func cancel() {
        state.withLock { state in
            state.stopped = true
            state.alarm.disarm()
            state.task?.cancel()
            state.task = nil
        }
    }
}

/// Thrown by a timer body that found nothing due, so it consumes no revision.
struct NothingDue: Error {}

extension PropertyService {
    /// Fires every deadline that is due (expiring keys, time operators) as
    /// one revision of its own. The write pipeline arms the timer again
    /// afterwards, whatever the outcome.
    func fireDueTimers() async {
        // Before the body reads the space: a change after this queues another fire.
        timerDuty.resyncStarted()
        // A cluster node without the timer election leaves them to the holder.
        guard timerDuty.isHeld else { return }
        do {
            _ = try await commitUnmapped { transaction, state in
                let propagation = state.engine.fireDueTimers(now: state.clock.now()) { key in
                    (try? transaction.property(key))?.value
                }
                guard !propagation.isEmpty else { throw NothingDue() }
                state.changed(at: transaction.revision)
                try propagation.apply(to: &transaction)
            }
        } catch is NothingDue {
            // Woken a little early, or what was due was replaced meanwhile.
        } catch {
            logger.error("timers could not be committed", metadata: ["error": "\(error)"])
            // The engine is rebuilt from the store by the next write; try
            // again in a second rather than spinning on a full disk.
            let clock = SystemBindingClock()
            timers.arm(clock.now().advanced(by: .seconds(1)), clock: clock)
        }
    }
}
