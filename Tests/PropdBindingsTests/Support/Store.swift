import PropdBindings
import PropdCore

/// A test stand-in for the service: committed values and error states, an
/// engine, and a manual clock. Every write commits the derived changes the
/// engine returns, the way the service does in one transaction.
final class Store {
    let clock = ManualBindingClock(at: BindingInstant(milliseconds: 1_000_000))
    let engine: BindingEngine
    var values: [Key: JSONValue] = [:]
    var errors: [Key: String] = [:]
    /// Persisted operator state per binding.
    var states: [Key: JSONValue] = [:]
    /// Every derived change committed, in order.
    var log: [Change] = []

    init() { engine = BindingEngine(clock: clock) }

    static func key(_ text: String) -> Key {
        guard let key = try? Key(text) else { fatalError("bad test key \(text)") }
        return key
    }

    func value(_ key: String) -> JSONValue? { values[Store.key(key)] }
    func error(_ key: String) -> String? { errors[Store.key(key)] }

    @discardableResult
    func bind(_ key: String, _ expression: String) throws(BindingError) -> Propagation {
        let declared = try engine.declare(key: Store.key(key), expression: expression) { [values] in values[$0] }
        commit(declared.propagation)
        return declared.propagation
    }

    @discardableResult
    func set(_ pairs: [(String, JSONValue)]) -> Propagation {
        let changes = pairs.map { Change.set(Store.key($0.0), $0.1) }
        return write(changes)
    }

    @discardableResult
    func set(_ key: String, _ value: JSONValue) -> Propagation { set([(key, value)]) }

    @discardableResult
    func delete(_ key: String) -> Propagation { write([.delete(Store.key(key))]) }

    @discardableResult
    func write(_ changes: [Change]) -> Propagation {
        // The engine is told before the store applies the write: lookup sees committed values.
        let propagation = engine.propagate(changes) { [values] in values[$0] }
        for change in changes { apply(change) }
        commit(propagation)
        return propagation
    }

    /// Fires due timers at the clock's current time.
    @discardableResult
    func fire() -> Propagation {
        let propagation = engine.fireDueTimers(now: clock.now()) { [values] in values[$0] }
        commit(propagation)
        return propagation
    }

    /// Sets keys that expire `ttl` from now, as a Set with `ttl` does.
    @discardableResult
    func set(_ key: String, _ value: JSONValue, ttl: Duration) -> Propagation {
        engine.expire([Store.key(key)], at: clock.now().advanced(by: ttl))
        return set(key, value)
    }

    func commit(_ propagation: Propagation) {
        for key in propagation.expired {
            values[key] = nil
            log.append(.delete(key))
        }
        for key in propagation.clearedErrors { errors[key] = nil }
        for change in propagation.changes {
            apply(change)
            log.append(change)
        }
        for update in propagation.states { states[update.key] = update.state }
    }

    private func apply(_ change: Change) {
        switch change.kind {
        case .set(let value):
            values[change.key] = value
            errors[change.key] = nil
        case .delete:
            values[change.key] = nil
        case .error(let message):
            errors[change.key] = message
        }
    }

    /// The values a derived key received, in order (its `set` changes).
    func history(_ key: String) -> [JSONValue] {
        log.compactMap { change in
            guard change.key == Store.key(key), case .set(let value) = change.kind else { return nil }
            return value
        }
    }
}

/// Evaluates a single-source expression on a value through a fresh engine.
func evaluate(_ body: String, on input: JSONValue) throws -> (value: JSONValue?, error: String?) {
    let store = Store()
    store.set("in", input)
    try store.bind("out", "in.map { x in \(body) }")
    return (store.value("out"), store.error("out"))
}

/// The `BindingInvalid` message, line and column of `expression`, or nil when it compiles.
func invalid(_ expression: String) -> (message: String, line: Int, column: Int)? {
    let engine = BindingEngine(clock: ManualBindingClock())
    do {
        try engine.validate(key: Store.key("target"), expression: expression)
        return nil
    } catch {
        if case .invalid(let message, let line, let column) = error { return (message, line, column) }
        return nil
    }
}
