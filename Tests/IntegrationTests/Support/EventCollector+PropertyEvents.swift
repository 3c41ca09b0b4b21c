import PropdClient
import PropdTestSupport

extension EventCollector {
    /// Collects a client's observation.
    convenience init(_ events: PropertyEvents) {
        self.init { yield in
            for try await event in events { yield(event) }
        }
    }
}
