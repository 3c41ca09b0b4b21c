public import PropdCore

extension BindingEngine {
    /// Checks a binding without changing anything: parse, types, sources, and
    /// whether it would close a cycle with the current graph (flatMap edges included).
    ///
    /// - Returns: the keys the expression names outside closures, in order of first use.
    /// - Throws: ``BindingError/invalid(message:line:column:)`` or ``BindingError/cycle(_:)``.
    @discardableResult
    public func validate(key: Key, expression: String) throws(BindingError) -> [Key] {
        try plan(key: key, expression: expression).sources
    }

    func plan(key: Key, expression: String) throws(BindingError) -> CompiledBinding {
        let compiled = try CompiledBinding(expression)
        if compiled.sources.contains(key) { throw .cycle([key.rawValue]) }
        guard let id = ids[key], !nodes[Int(id)].dependents.isEmpty else { return compiled }
        for source in compiled.sources {
            guard let sourceId = ids[source], let cycle = path(from: id, to: sourceId) else { continue }
            throw .cycle(cycle.map { nodes[Int($0)].key.rawValue })
        }
        return compiled
    }

    /// Declares or replaces the binding of `key` and evaluates it at once
    /// from its sources' current values (RACObserve sends the current value
    /// first), then everything downstream of `key`.
    ///
    /// Nothing changes when it throws. A replaced binding starts with fresh
    /// state; the propagation always carries the declared key's state so the
    /// store can replace what it persisted for an earlier binding of the key.
    public func declare(key: Key, expression: String, lookup: Lookup) throws(BindingError) -> Declaration {
        let compiled = try plan(key: key, expression: expression)
        let id = node(for: key)
        unlink(id)
        let sourceNodes = compiled.sources.map { node(for: $0) }
        let binding = DerivedBinding(expression: expression, compiled: compiled, sourceNodes: sourceNodes)
        link(binding, at: id)
        raise(id, to: requiredHeight(of: binding))
        let propagation = withoutActuallyEscaping(lookup) { lookup in
            beginEpoch()
            subscriber = id
            let now = clock.now().milliseconds
            var result = Propagation()
            evaluate(id, subscribing: true, now: now, lookup: lookup, into: &result)
            drain(now: now, lookup: lookup, into: &result)
            // A new binding's state replaces whatever an earlier binding of the
            // key left persisted, even when evaluating it changed nothing.
            if !result.states.contains(where: { $0.key == key }) {
                result.states.insert(BindingStateUpdate(key: key, state: binding.stateJSON), at: 0)
            }
            return finish(result)
        }
        return Declaration(sources: compiled.sources, propagation: propagation)
    }

    /// Declares or replaces the binding of `key` with the operator state a
    /// dump saved (``state(of:)``), without evaluating it: the key keeps its
    /// value and the binding continues where the dumped one stopped (scan
    /// accumulators, counters, pending timers). Nothing changes when it throws.
    ///
    /// - Throws: what ``declare(key:expression:lookup:)`` throws, and
    ///   ``BindingError/invalid(message:line:column:)`` when `state` does not
    ///   fit the expression's operators.
    public func declare(key: Key, expression: String, restoring state: JSONValue) throws(BindingError) -> Declaration {
        let compiled = try plan(key: key, expression: expression)
        let binding = DerivedBinding(expression: expression, compiled: compiled, sourceNodes: [])
        guard binding.restore(state) else {
            throw .invalid("the saved state does not fit the operators of this expression", at: .start)
        }
        let id = node(for: key)
        unlink(id)
        let restored = DerivedBinding(expression: expression, compiled: compiled,
            sourceNodes: compiled.sources.map { node(for: $0) })
        restored.restore(state)
        followRestoredTargets(of: restored)
        link(restored, at: id)
        raise(id, to: requiredHeight(of: restored))
        let propagation = Propagation(states: [BindingStateUpdate(key: key, state: restored.stateJSON)],
            nextDeadline: nextDeadline)
        return Declaration(sources: compiled.sources, propagation: propagation)
    }

    /// Gives the flatMap targets of restored state their nodes.
    func followRestoredTargets(of binding: DerivedBinding) {
        for slot in binding.states.indices {
            guard case .flatMap(var s) = binding.states[slot], let target = s.target else { continue }
            s.targetNode = node(for: target)
            binding.states[slot] = .flatMap(s)
        }
    }

    /// Removes the binding of `key` (Unbind): the key keeps its last value as
    /// a plain property; bindings reading it keep reading it.
    /// - Returns: whether `key` had a binding.
    @discardableResult
    public func remove(key: Key) -> Bool {
        guard let id = ids[key], nodes[Int(id)].binding != nil else { return false }
        unlink(id)
        nodes[Int(id)].height = 0
        return true
    }

    /// Rebuilds bindings persisted by a previous run, with their operator
    /// state, without evaluating anything (no value is emitted again).
    /// Pending timers (throttle, delay, timeout) keep their deadlines: call ``fireDueTimers(now:lookup:)``
    /// when ``nextDeadline`` is due.
    ///
    /// A state that does not fit the expression (e.g. written by another
    /// version) is replaced by a fresh one.
    /// - Returns: the bindings that could not be restored and why (they are not declared).
    @discardableResult
    public func restore(_ bindings: [RestoredBinding]) -> [Key: BindingError] {
        var failures: [Key: BindingError] = [:]
        for entry in bindings {
            let compiled: CompiledBinding
            do {
                compiled = try CompiledBinding(entry.expression)
            } catch {
                failures[entry.key] = error
                continue
            }
            let id = node(for: entry.key)
            unlink(id)
            let binding = DerivedBinding(expression: entry.expression, compiled: compiled,
                sourceNodes: compiled.sources.map { node(for: $0) })
            if let state = entry.state { binding.restore(state) }
            followRestoredTargets(of: binding)
            link(binding, at: id)
        }
        for cycle in recomputeHeights() {
            let keys = cycle.map { nodes[Int($0)].key.rawValue }
            for id in cycle where nodes[Int(id)].binding != nil {
                failures[nodes[Int(id)].key] = .cycle(keys)
                unlink(id)
            }
        }
        return failures
    }

    /// Installs `binding` on node `id`: static and followed edges, timers.
    func link(_ binding: DerivedBinding, at id: Int32) {
        // Source nodes are distinct: the compiler lists each key once.
        for source in binding.sourceNodes { nodes[Int(source)].dependents.append(id) }
        for followed in binding.followedNodes { nodes[Int(followed)].dependents.append(id) }
        nodes[Int(id)].binding = binding
        bindingCount += 1
        schedule.set(.binding(id), at: binding.earliestDeadline())
    }

    /// Removes the binding on node `id`, if any, with all its edges and timers.
    func unlink(_ id: Int32) {
        guard let binding = nodes[Int(id)].binding else { return }
        for source in binding.sourceNodes { removeDependent(id, from: source) }
        for followed in binding.followedNodes { removeDependent(id, from: followed) }
        nodes[Int(id)].binding = nil
        bindingCount -= 1
        schedule.set(.binding(id), at: nil)
    }
}

extension DerivedBinding {
    /// The persisted form of the binding's state: `{"states": [...], "error": "..."}`.
    var stateJSON: JSONValue {
        var object: [String: JSONValue] = ["states": .array(states.map(\.json))]
        if let error { object["error"] = .string(error) }
        return .object(object)
    }

    /// Loads `json` (from ``stateJSON``) when it fits this binding's
    /// operators; returns whether it did (the error is kept either way).
    @discardableResult
    func restore(_ json: JSONValue) -> Bool {
        if case .string(let message)? = json["error"] { error = message }
        guard case .array(let saved)? = json["states"], saved.count == states.count else { return false }
        var restored: [OperatorState] = []
        for (fresh, entry) in zip(states, saved) {
            guard let state = fresh.restored(from: entry) else { return false }
            restored.append(state)
        }
        states = restored
        return true
    }
}
