public import PropdCore

/// All declared bindings, their dependency graph and their operator state:
/// the pure heart of derived properties. It reads no files, no database and
/// no system clock; the service owns one (a single writer) and feeds it.
///
/// ```swift
/// let engine = BindingEngine(clock: systemClock)
/// let declared = try engine.declare(key: try Key("ui.login.enabled"),
///     expression: "combineLatest(form.account, form.password).map { a, p in len(a) > 5 && len(p) > 5 }",
///     lookup: store.value(of:))
/// // commit declared.propagation.changes with the Bind revision …
/// let derived = engine.propagate([.set(try Key("form.account"), "aahuang")], lookup: store.value(of:))
/// // … and derived.changes / derived.states with the write's revision.
/// ```
///
/// > Tip: `lookup` answers with the *committed* value of a key (before the
/// > changes being propagated); the engine overlays the changes itself.
public final class BindingEngine {
    /// Reads the stored value of a key the engine needs but does not remember.
    public typealias Lookup = (Key) -> JSONValue?

    let clock: any BindingClock
    var nodes: [KeyNode] = []
    var ids: [Key: Int32] = [:]
    /// Number of declared bindings.
    var bindingCount = 0
    /// Bindings with a pending throttle, and its earliest deadline.
    var timers: [Int32: Int64] = [:]
    var epoch: UInt32 = 0
    var queue = HeightQueue()
    /// Nodes whose `change` was set in the current epoch, to clear afterwards.
    var touched: [Int32] = []
    /// The binding being declared in the current epoch: it is evaluated as a
    /// new subscription (sources send their current values), even when retried.
    var subscriber: Int32?
    /// The changes being propagated, for keys the engine has no node for yet.
    var input: [Change] = []
    /// `input` by key, built only when a flatMap switches to an unknown key.
    var inputByKey: [Key: Emission]?

    /// An engine reading time from `clock`.
    public init(clock: any BindingClock) {
        self.clock = clock
    }

    /// The node of `key`, created when the engine does not know the key yet.
    func node(for key: Key) -> Int32 {
        if let id = ids[key] { return id }
        let id = Int32(nodes.count)
        nodes.append(KeyNode(key: key))
        ids[key] = id
        return id
    }

    /// The earliest pending timer (a throttled value waiting to be emitted).
    public var nextDeadline: BindingInstant? {
        timers.values.min().map { BindingInstant(milliseconds: $0) }
    }

    /// The number of declared bindings.
    public var count: Int { bindingCount }
}
