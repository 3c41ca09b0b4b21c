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

    // The properties below are read and written on every step of a
    // propagation. `@exclusivity(unchecked)` drops the run-time exclusivity
    // bookkeeping (a third of the time of a simple map otherwise). It is safe
    // because the engine is not Sendable and is driven by one owner, and no
    // access overlaps another: loops iterate copies (`for d in
    // nodes[i].dependents` copies the array before the body writes), a
    // binding's states are swapped out of it while it evaluates, and
    // evaluation only reads `nodes`/`ids` (every write happens after it returns).
    @exclusivity(unchecked) var nodes: [KeyNode] = []
    @exclusivity(unchecked) var ids: [Key: Int32] = [:]
    /// Number of declared bindings.
    var bindingCount = 0
    /// Every pending deadline: time operators' timers and expiring keys.
    @exclusivity(unchecked) var schedule = DeadlineSchedule<TimerOwner>()
    /// How many of the schedule's deadlines are expiring keys.
    var expiringKeys = 0
    @exclusivity(unchecked) var epoch: UInt32 = 0
    @exclusivity(unchecked) var queue = HeightQueue()
    /// Nodes whose `change` was set in the current epoch, to clear afterwards.
    @exclusivity(unchecked) var touched: [Int32] = []
    /// The binding being declared in the current epoch: it is evaluated as a
    /// new subscription (sources send their current values), even when retried.
    @exclusivity(unchecked) var subscriber: Int32?
    /// The changes being propagated, for keys the engine has no node for yet.
    @exclusivity(unchecked) var input: [Change] = []
    /// `input` by key, built only when a flatMap switches to an unknown key.
    @exclusivity(unchecked) var inputByKey: [Key: Emission]?

    /// What derived values may cost; the daemon sets it from its limits.
    public var limits = BindingLimits.defaults
    /// The most derived keys one propagation has recomputed so far.
    public internal(set) var largestRecomputation = 0

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

    /// The earliest pending deadline: a time operator's timer or a key's
    /// expiry. Call ``fireDueTimers(now:lookup:)`` when it is due.
    public var nextDeadline: BindingInstant? {
        schedule.earliest.map { BindingInstant(milliseconds: $0) }
    }

    /// The number of pending deadlines (timers and expiring keys).
    public var pendingDeadlines: Int { schedule.count }

    /// The number of declared bindings.
    public var count: Int { bindingCount }
}

/// What a deadline of the engine's schedule belongs to.
enum TimerOwner: Hashable {
    /// The binding on this node has a time operator waiting.
    case binding(Int32)
    /// This key expires (`Set(..., ttl)`).
    case expiry(Key)
}
