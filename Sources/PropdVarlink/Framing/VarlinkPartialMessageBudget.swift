import Synchronization

/// The bytes of incomplete messages all connections of a server hold
/// together, against a cap: one slow sender of large messages per
/// connection cannot multiply into the daemon's memory.
final class VarlinkPartialMessageBudget: Sendable {
    private let cap: Atomic<Int>
    private let held = Atomic<Int>(0)

    init(limit: Int) { cap = Atomic(limit) }

    /// The cap; a lower one applies to bytes reserved from now on.
    var limit: Int {
        get { cap.load(ordering: .relaxed) }
        set { cap.store(newValue, ordering: .relaxed) }
    }

    /// Takes `bytes` more; false (and nothing taken) when that passes the limit.
    func reserve(_ bytes: Int) -> Bool {
        var current = held.load(ordering: .relaxed)
        while true {
            guard current + bytes <= limit else { return false }
            let (exchanged, original) = held.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    func release(_ bytes: Int) {
        held.subtract(bytes, ordering: .relaxed)
    }

    var total: Int { held.load(ordering: .relaxed) }
}
