import Synchronization

/// Subscriptions open per connection, for the `subscriptionsPerConnection` limit.
final class SubscriptionCounter: Sendable {
    private let counts = Mutex<[UInt64: Int]>([:])

    /// Counts one more subscription on `connection` unless that would exceed `maximum`.
    func acquire(_ connection: UInt64, maximum: Int) -> Bool {
        counts.withLock { counts in
            let current = counts[connection, default: 0]
            guard current < maximum else { return false }
            counts[connection] = current + 1
            return true
        }
    }

    func release(_ connection: UInt64) {
        counts.withLock { counts in
            let remaining = counts[connection, default: 1] - 1
            counts[connection] = remaining > 0 ? remaining : nil
        }
    }
}
