import PropdBindings
import PropdCore
import Synchronization

/// A reference to the service that does not keep it alive, so the timer task
/// never outlives the daemon's service.
struct WeakService: Sendable {
    weak var service: PropertyService?
    init(_ service: PropertyService) { self.service = service }
}

/// Wakes the writer when the earliest pending throttle is due. One timer
/// task at a time, for the earliest deadline; each firing is a write request
/// of its own (a revision when it emits something), after which the timer is
/// armed again for whatever is pending next.
final class BindingTimers: Sendable {
    private struct State {
        var armed: BindingInstant?
        var task: Task<Void, Never>?
        var cancelled = false
        var service: WeakService?
    }

    private let state = Mutex(State())

    var service: WeakService? {
        get { state.withLock { $0.service } }
        set { state.withLock { $0.service = newValue } }
    }

    /// Makes sure a timer fires at `deadline` (nothing when `nil` or when an
    /// earlier one is armed already).
    func arm(_ deadline: BindingInstant?, clock: any BindingClock) {
        guard let deadline else { return }
        let delay = max(0, deadline.milliseconds - clock.now().milliseconds)
        state.withLock { state in
            guard !state.cancelled, let service = state.service else { return }
            if let armed = state.armed, armed <= deadline { return }
            state.task?.cancel()
            state.armed = deadline
            state.task = Task {
                // This sleep is the timer itself: a throttle emits once its time has passed.
                try? await Task.sleep(for: .milliseconds(delay))
                guard !Task.isCancelled else { return }
                self.fired(deadline)
                await service.service?.fireDueTimers()
            }
        }
    }

    private func fired(_ deadline: BindingInstant) {
        state.withLock { state in
            if state.armed == deadline {
                state.armed = nil
                state.task = nil
            }
        }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.task?.cancel()
            state.task = nil
        }
    }
}

/// Thrown by a timer body that found nothing due, so it consumes no revision.
struct NothingDue: Error {}

extension PropertyService {
    /// Emits every throttled value that is due, as one revision of its own.
    func fireDueTimers() async {
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
            // The timer fired early, or its value was superseded meanwhile.
        } catch {
            logger.error("throttled values could not be committed", metadata: ["error": "\(error)"])
            // The engine is rebuilt from the store by the next write; try
            // again in a second rather than spinning on a full disk.
            let clock = SystemBindingClock()
            timers.arm(clock.now().advanced(by: .seconds(1)), clock: clock)
        }
    }
}
