import PropdCore

/// One evaluation of one binding: what the operators may ask of the engine
/// (the current change of a source, a key's current value, the time) and
/// what they report back (state changed, edges to follow, deadlines).
struct StreamRun {
    // unowned(unsafe): a run lives only inside `BindingEngine.evaluate`, which
    // the engine itself is executing, so the engine always outlives it; this
    // saves the unowned reference counting on every source read.
    unowned(unsafe) let engine: BindingEngine
    let node: Int32
    let sourceNodes: [Int32]
    /// True for the first evaluation at Bind: sources emit their current values.
    let subscribing: Bool
    let now: Int64
    let epoch: UInt32
    let lookup: (Key) -> JSONValue?

    var stateChanged = false
    /// Set when an operator dropped a value (filter, distinctUntilChanged,
    /// skip, take…): the evaluation succeeded even though nothing is emitted.
    var dropped = false
    /// flatMap edges to change once the evaluation is kept: (slot, old node, new key).
    var follows: [(slot: Int, from: Int32?, to: Key?)] = []
    /// Set when a followed key sits at or above this binding's height: the
    /// evaluation is discarded and redone after raising the height.
    var retryHeight: Int32?

    /// What a source node says in this evaluation.
    func change(of source: Int32?) -> Emission {
        guard let source else { return .nothing }
        // Field by field: copying the whole node would retain its key, edges and binding.
        if engine.nodes[Int(source)].changedEpoch == epoch { return engine.nodes[Int(source)].change }
        if subscribing, let value = lookup(engine.nodes[Int(source)].key) { return .value(value) }
        return .nothing
    }

    /// The value of `key` as of this propagation: changed in it, or stored.
    func currentValue(of key: Key) -> JSONValue? {
        if let id = engine.ids[key] {
            let node = engine.nodes[Int(id)]
            if node.changedEpoch == epoch {
                if case .value(let value) = node.change { return value }
                return nil
            }
        } else {
            switch engine.inputChange(of: key) {
            case .value(let value): return value
            case .deleted: return nil
            case .nothing, .error: break
            }
        }
        return lookup(key)
    }

    /// The keys of the cycle following `key` would close, or `nil`.
    mutating func cycle(following key: Key) -> [String]? {
        guard let target = engine.ids[key] else { return nil }
        let ownHeight = engine.nodes[Int(node)].height
        let targetHeight = engine.nodes[Int(target)].height
        // Everything downstream of this binding is higher than it.
        if target != node && targetHeight < ownHeight { return nil }
        if let path = engine.path(from: node, to: target) {
            return path.map { engine.nodes[Int($0)].key.rawValue }
        }
        if targetHeight >= ownHeight { retryHeight = max(retryHeight ?? 0, targetHeight + 1) }
        return nil
    }

    mutating func follow(slot: Int, from old: Int32?, to new: Key?) {
        follows.append((slot, old, new))
    }

    /// Runs `program`, mutating the binding's operator `states` in place.
    mutating func evaluate(_ program: StreamProgram, _ states: inout [OperatorState]) -> Emission {
        switch program {
        case .source(let index):
            return change(of: sourceNodes[index])
        case .combineLatest(let children, let slot):
            var inputs: [Emission] = []
            inputs.reserveCapacity(children.count)
            for child in children { inputs.append(evaluate(child, &states)) }
            guard case .combineLatest(var state) = states[slot] else { return .nothing }
            states[slot] = .vacant
            defer { states[slot] = .combineLatest(state) }
            let before = state
            let output = state.step(inputs, changed: &stateChanged)
            if let failure = oversize(state.latest) {
                // Neither emitted nor kept: the state stays what it was.
                state = before
                return .error(failure)
            }
            return output
        case .merge(let children):
            var inputs: [Emission] = []
            inputs.reserveCapacity(children.count)
            for child in children { inputs.append(evaluate(child, &states)) }
            return Merge.step(inputs)
        case .step(let upstream, let step, let slot):
            let input = evaluate(upstream, &states)
            let output = apply(step, slot: slot, input, &states)
            if case .value = input, output == .nothing, !step.holdsValues { dropped = true }
            return output
        }
    }

    /// Why the latest values `combineLatest` holds (and emits as one list)
    /// are more than a value may be, or `nil`: each source is within the
    /// limit, but not necessarily their sum.
    private func oversize(_ latest: [JSONValue?]) -> String? {
        let list = JSONValue.array(latest.map { $0 ?? .null })
        let size = list.approximateJSONSize(upTo: engine.limits.maxValueBytes &+ 1)
        guard size.bytes > engine.limits.maxValueBytes || size.depth > BindingLimits.maxDepth else { return nil }
        return "value too large: the values of combineLatest come to more than \(engine.limits.maxValueBytes) bytes"
    }

    private mutating func apply(_ step: Step, slot: Int, _ input: Emission, _ states: inout [OperatorState])
        -> Emission
    {
        switch step {
        case .map(let closure):
            return Map.step(input, closure, limits: engine.limits)
        case .startWith(let value):
            return StartWith.step(input, value, subscribing: subscribing)
        case .catchTo(let value):
            return CatchTo.step(input, value)
        case .ignore(let value):
            return Ignore.step(input, value)
        default:
            break
        }
        // Stateful steps: take the state out of its slot so it mutates in place.
        let state = states[slot]
        states[slot] = .vacant
        var output = Emission.nothing
        switch (step, state) {
        case (.filter(let predicate), .filter(var s)):
            output = s.step(input, predicate, limits: engine.limits, changed: &stateChanged)
            states[slot] = .filter(s)
        case (.distinctUntilChanged, .distinctUntilChanged(var s)):
            output = s.step(input, changed: &stateChanged)
            states[slot] = .distinctUntilChanged(s)
        case (.skip(let count), .skip(var s)):
            output = s.step(input, count: count, changed: &stateChanged)
            states[slot] = .skip(s)
        case (.take(let count), .take(var s)):
            output = s.step(input, count: count, changed: &stateChanged)
            states[slot] = .take(s)
        case (.scan(_, let reduce), .scan(var s)):
            output = s.step(input, reduce, limits: engine.limits, changed: &stateChanged)
            states[slot] = .scan(s)
        case (.throttle(let milliseconds), .throttle(var s)):
            output = s.step(input, milliseconds: milliseconds, now: now, changed: &stateChanged)
            states[slot] = .throttle(s)
        case (.timeout(let milliseconds, let written), .timeout(var s)):
            output = s.step(input, milliseconds: milliseconds, written: written, now: now, changed: &stateChanged)
            states[slot] = .timeout(s)
        case (.delay(let milliseconds), .delay(var s)):
            output = s.step(input, milliseconds: milliseconds, now: now, changed: &stateChanged)
            states[slot] = .delay(s)
        case (.flatMap(let selector), .flatMap(var s)):
            output = s.step(input, selector, slot: slot, run: &self)
            states[slot] = .flatMap(s)
        case (.takeUntil(_, let source), .takeUntil(var s)):
            let stop = change(of: sourceNodes[source])
            output = s.step(input, until: stop, subscribing: subscribing, changed: &stateChanged)
            states[slot] = .takeUntil(s)
        case (.takeWhile(let predicate), .takeWhile(var s)):
            output = s.step(input, predicate, changed: &stateChanged)
            states[slot] = .takeWhile(s)
        case (.skipWhile(let predicate), .skipWhile(var s)):
            output = s.step(input, predicate, changed: &stateChanged)
            states[slot] = .skipWhile(s)
        default:
            states[slot] = state
        }
        return output
    }
}
