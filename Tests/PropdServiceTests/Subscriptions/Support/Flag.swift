import Synchronization

/// A boolean set once, readable from any thread.
final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
    func clear() { value.store(false, ordering: .releasing) }
}
