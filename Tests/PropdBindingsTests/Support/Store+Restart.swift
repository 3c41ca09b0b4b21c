import PropdBindings
import PropdCore
import Testing

extension Store {
    /// A fresh engine restored from this store's persisted bindings and
    /// operator states, over the same committed values: a daemon restart.
    func restarted() -> Store {
        let next = Store()
        next.clock.set(clock.now())
        next.values = values
        next.errors = errors
        next.states = states
        let saved = engine.bindings.map {
            RestoredBinding(key: $0.key, expression: $0.expression, state: states[$0.key])
        }
        #expect(next.engine.restore(saved).isEmpty)
        return next
    }
}
