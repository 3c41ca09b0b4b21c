import PropdCore

/// One compare-and-set a client sent: `key` to `value`, provided the key
/// still had revision `expected`.
struct Attempt: Sendable, Equatable {
    /// What the client was told.
    enum Outcome: Sendable, Equatable {
        /// Acknowledged at this revision: it must be in the history, there.
        case acknowledged(Revision)
        /// Refused before anything was applied (`RevisionMismatch`): it must
        /// not be in the history.
        case refused(String)
        /// `io.propd.Unavailable`, or the node died with the call in flight:
        /// it may or may not have been applied.
        case indeterminate(String)
    }

    var client: Int
    var node: Int
    var key: String
    /// Unique across the run, so a value in the history names its attempt.
    var value: Int64
    var expected: Revision
    var outcome: Outcome
}

/// Every attempt of every client, in the order each client made them, and
/// whether the clients should go on.
actor WriteLedger {
    /// Counts the fault rounds wait on: the evidence that a fault was felt.
    struct Tally: Sendable {
        var acknowledged = 0
        var unavailable = 0
        /// Acknowledgements per node.
        var acknowledgedOn: [Int: Int] = [:]
    }

    private(set) var attempts: [Attempt] = []
    private(set) var tally = Tally()
    private(set) var isRunning = true

    /// A round waiting for the tally to satisfy its condition.
    private struct Waiter {
        var condition: @Sendable (Tally) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0

    func record(_ attempt: Attempt) {
        attempts.append(attempt)
        switch attempt.outcome {
        case .acknowledged:
            tally.acknowledged += 1
            tally.acknowledgedOn[attempt.node, default: 0] += 1
        case .indeterminate(let reason) where reason.hasPrefix("Unavailable"):
            tally.unavailable += 1
        case .indeterminate, .refused:
            return
        }
        for (id, waiter) in waiters where waiter.condition(tally) {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    /// Returns once `condition` holds of the tally, checked now and at each
    /// attempt recorded after; returns at once, whether it holds or not,
    /// when the waiting task is cancelled (its deadline passed).
    func waitUntil(_ condition: @escaping @Sendable (Tally) -> Bool) async {
        if condition(tally) { return }
        let id = nextWaiter
        nextWaiter += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Registered before the actor is given up: a cancellation's
                // `cancel(_:)` runs after this and finds it.
                if Task.isCancelled { return continuation.resume() }
                waiters[id] = Waiter(condition: condition, continuation: continuation)
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    func stop() { isRunning = false }
}
