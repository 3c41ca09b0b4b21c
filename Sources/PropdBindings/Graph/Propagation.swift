public import PropdCore

/// What one committed change set (or a declaration, or fired timers) causes:
/// the derived changes to commit in the same revision, the operator states to
/// persist with them, and when the engine next needs `fireDueTimers`.
public struct Propagation: Sendable, Hashable {
    /// Keys whose time ran out (``BindingEngine/fireDueTimers(now:lookup:)``):
    /// deleted in this revision, before the derived changes.
    public var expired: [Key] = []
    /// Derived changes, `.set` or `.error`, in height order; each key at most once.
    /// A `.set` may repeat the kept value: a successful evaluation whose value
    /// was dropped (filter, distinctUntilChanged, …) clearing an error.
    public var changes: [Change]
    /// Derived keys that never had a value and whose error a successful
    /// evaluation cleared: there is no value to set, only the error to remove.
    public var clearedErrors: [Key] = []
    /// New operator state of each binding whose state changed, to store with the changes.
    public var states: [BindingStateUpdate]
    /// The earliest pending deadline of the whole engine (a timer or an
    /// expiring key), after this propagation.
    public var nextDeadline: BindingInstant?
    /// The derived keys this propagation recomputed.
    public var recomputations = 0
    /// True when it stopped at ``BindingLimits/maxRecomputationsPerRevision``:
    /// `changes` and `states` are incomplete and must not be committed, and
    /// the engine must be rebuilt from the store.
    public var overflowed = false

    public init(changes: [Change] = [], states: [BindingStateUpdate] = [], nextDeadline: BindingInstant? = nil) {
        self.changes = changes
        self.states = states
        self.nextDeadline = nextDeadline
    }

    /// True when nothing is to be committed.
    public var isEmpty: Bool { changes.isEmpty && states.isEmpty && expired.isEmpty && clearedErrors.isEmpty }
}

/// A binding's operator state to persist (see ``BindingEngine/state(of:)``).
public struct BindingStateUpdate: Sendable, Hashable {
    public var key: Key
    public var state: JSONValue

    public init(key: Key, state: JSONValue) {
        self.key = key
        self.state = state
    }
}

/// The result of ``BindingEngine/declare(key:expression:lookup:)``.
public struct Declaration: Sendable, Hashable {
    /// The keys the expression names outside closures, in order of first use.
    public var sources: [Key]
    /// The binding's immediate evaluation and everything downstream of it.
    public var propagation: Propagation
}

/// A binding as persisted, for ``BindingEngine/restore(_:)``.
public struct RestoredBinding: Sendable, Hashable {
    public var key: Key
    public var expression: String
    /// What ``BindingEngine/state(of:)`` returned; `nil` starts fresh.
    public var state: JSONValue?

    public init(key: Key, expression: String, state: JSONValue?) {
        self.key = key
        self.expression = expression
        self.state = state
    }
}

/// A declared binding as `Bindings` lists it.
public struct BindingInfo: Sendable, Hashable {
    public var key: Key
    public var expression: String
    /// Keys named outside closures, in order of first use.
    public var sources: [Key]
    /// Keys followed through flatMap right now.
    public var followed: [Key]
    /// The current evaluation error, if any.
    public var error: String?
    /// The operators in the order they are written, e.g. `["map", "distinctUntilChanged"]`.
    public var operators: [String]
}
