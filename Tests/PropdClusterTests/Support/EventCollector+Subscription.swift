import PropdService
import PropdTestSupport

extension EventCollector {
    /// Collects a service subscription's events; it ends with the
    /// subscription, or with the error that ended it (`SlowConsumer`).
    convenience init(_ subscription: Subscription) {
        self.init { yield in
            for try await encoded in subscription.events { yield(encoded.event) }
        }
    }
}
