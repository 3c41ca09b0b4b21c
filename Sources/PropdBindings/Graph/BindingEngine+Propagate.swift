public import PropdCore

extension BindingEngine {
    /// Computes every derived change caused by one committed change set.
    ///
    /// Derived keys are evaluated in height order, each at most once, after
    /// every key they read has settled (glitch-free: a diamond yields one
    /// value per change), and derived changes feed further bindings in the
    /// same call. Only bindings downstream of `changes` are touched.
    ///
    /// - Parameters:
    ///   - changes: the keys the write set or deleted (`.error` entries are ignored).
    ///   - lookup: committed values of keys the engine needs (a flatMap's new target).
    public func propagate(_ changes: [Change], lookup: Lookup) -> Propagation {
        // No binding reads any of these keys (a write to plain properties,
        // most writes): nothing to mark, queue or evaluate.
        guard changes.contains(where: { ids[$0.key] != nil }) else {
            return Propagation(nextDeadline: nextDeadline)
        }
        return withoutActuallyEscaping(lookup) { lookup in
            beginEpoch()
            input = changes
            for change in changes {
                guard let id = ids[change.key] else { continue }
                switch change.kind {
                case .set(let value): mark(id, .value(value))
                case .delete: mark(id, .deleted)
                case .error: continue
                }
                enqueueDependents(of: id)
            }
            var result = Propagation()
            drain(now: clock.now().milliseconds, lookup: lookup, into: &result)
            return finish(result)
        }
    }

    /// Fires every deadline at or before `now`: deletes the keys that
    /// expired (``Propagation/expired``), lets each time operator that is
    /// due emit (throttled or delayed values, timeouts), and computes
    /// everything downstream of both, glitch-free. The service commits the
    /// result as one revision of its own.
    public func fireDueTimers(now: BindingInstant, lookup: Lookup) -> Propagation {
        withoutActuallyEscaping(lookup) { lookup in
            beginEpoch()
            var result = Propagation()
            for owner in schedule.removeDue(atOrBefore: now.milliseconds) {
                switch owner {
                case .binding(let id):
                    guard nodes[Int(id)].queuedEpoch != epoch else { continue }
                    nodes[Int(id)].queuedEpoch = epoch
                    queue.push(node: id, height: nodes[Int(id)].height)
                case .expiry(let key):
                    expiringKeys -= 1
                    result.expired.append(key)
                    input.append(.delete(key))
                    guard let id = ids[key] else { continue }
                    mark(id, .deleted)
                    enqueueDependents(of: id)
                }
            }
            drain(now: now.milliseconds, lookup: lookup, into: &result)
            return finish(result)
        }
    }

    /// Sets (a deadline) or clears (`nil`) the expiry of `keys`: a `Set`
    /// with `ttl` (a heartbeat restarts the clock), a `Set` without it, a
    /// `Delete`, or a key becoming derived. Clearing costs nothing while no
    /// key expires.
    public func expire(_ keys: some Sequence<Key>, at deadline: BindingInstant?) {
        if deadline == nil && expiringKeys == 0 { return }
        for key in keys {
            let old = schedule.set(.expiry(key), at: deadline?.milliseconds)
            expiringKeys += (deadline == nil ? 0 : 1) - (old == nil ? 0 : 1)
        }
    }

    /// Restores the expiring keys a previous run persisted (at start, or
    /// after a rollback).
    public func restoreExpiries(_ expiring: [(key: Key, expires: Int64)]) {
        schedule.reserveCapacity(expiring.count)
        for (key, expires) in expiring {
            if schedule.set(.expiry(key), at: expires) == nil { expiringKeys += 1 }
        }
    }

    /// When `key` expires, if it does.
    public func expiry(of key: Key) -> BindingInstant? {
        schedule.deadline(of: .expiry(key)).map { BindingInstant(milliseconds: $0) }
    }

    /// The number of keys that expire.
    public var expiringCount: Int { expiringKeys }

    // MARK: The propagation loop

    func beginEpoch() {
        epoch &+= 1
        if epoch == 0 {
            // Wrapped around: forget every old mark so none is mistaken for current.
            for i in nodes.indices {
                nodes[i].changedEpoch = 0
                nodes[i].queuedEpoch = 0
            }
            epoch = 1
        }
        queue.removeAll()
    }

    func mark(_ id: Int32, _ change: Emission) {
        nodes[Int(id)].changedEpoch = epoch
        nodes[Int(id)].change = change
        touched.append(id)
    }

    func enqueueDependents(of id: Int32) {
        for dependent in nodes[Int(id)].dependents where nodes[Int(dependent)].queuedEpoch != epoch {
            nodes[Int(dependent)].queuedEpoch = epoch
            queue.push(node: dependent, height: nodes[Int(dependent)].height)
        }
    }

    func drain(now: Int64, lookup: @escaping Lookup, into result: inout Propagation) {
        let bound = limits.maxRecomputationsPerRevision
        while let (id, height) = queue.pop() {
            // An entry left behind when the node was raised: the newer one will come.
            guard nodes[Int(id)].height == height else { continue }
            if result.recomputations >= bound {
                result.overflowed = true
                queue.removeAll()
                break
            }
            result.recomputations += 1
            evaluate(id, subscribing: id == subscriber, now: now, lookup: lookup, into: &result)
        }
        largestRecomputation = max(largestRecomputation, result.recomputations)
    }

    /// How the change set being propagated changed `key`, for a key without a node.
    func inputChange(of key: Key) -> Emission {
        guard !input.isEmpty else { return .nothing }
        if inputByKey == nil {
            var byKey: [Key: Emission] = [:]
            for change in input {
                switch change.kind {
                case .set(let value): byKey[change.key] = .value(value)
                case .delete: byKey[change.key] = .deleted
                case .error: break
                }
            }
            inputByKey = byKey
        }
        return inputByKey?[key] ?? .nothing
    }

    func finish(_ result: Propagation) -> Propagation {
        for id in touched { nodes[Int(id)].change = .nothing }
        touched.removeAll(keepingCapacity: true)
        input = []
        inputByKey = nil
        subscriber = nil
        var result = result
        result.nextDeadline = nextDeadline
        return result
    }

    /// Evaluates the binding on `id` once and records what it emits.
    func evaluate(_ id: Int32, subscribing: Bool, now: Int64, lookup: @escaping Lookup,
        into result: inout Propagation)
    {
        guard let binding = nodes[Int(id)].binding else { return }
        let saved = binding.hasFlatMap ? binding.states : nil
        var states: [OperatorState] = []
        swap(&states, &binding.states)
        var run = StreamRun(engine: self, node: id, sourceNodes: binding.sourceNodes, subscribing: subscribing,
            now: now, epoch: epoch, lookup: lookup)
        let output = run.evaluate(binding.compiled.program, &states)
        if let height = run.retryHeight, let saved {
            // A followed key is not settled yet: redo this binding above it.
            binding.states = saved
            nodes[Int(id)].queuedEpoch = epoch
            raise(id, to: height)
            return
        }
        binding.states = states
        for follow in run.follows { applyFollow(follow, binding: binding, at: id) }
        if binding.compiled.usesTime { schedule.set(.binding(id), at: binding.earliestDeadline()) }
        var stateChanged = run.stateChanged
        switch output {
        case .value(let value):
            if binding.error != nil {
                binding.error = nil
                stateChanged = true
            }
            result.changes.append(.set(nodes[Int(id)].key, value))
            mark(id, .value(value))
            enqueueDependents(of: id)
        case .error(let message):
            if binding.error != message {
                binding.error = message
                stateChanged = true
                result.changes.append(Change(key: nodes[Int(id)].key, kind: .error(message)))
            }
        case .nothing, .deleted:
            // A value that evaluated without error and was then dropped still
            // ends the error state (the property keeps its value).
            if run.dropped, binding.error != nil {
                binding.error = nil
                stateChanged = true
                let key = nodes[Int(id)].key
                if let kept = lookup(key) {
                    result.changes.append(.set(key, kept))
                } else {
                    result.clearedErrors.append(key)
                }
            }
        }
        if stateChanged {
            result.states.append(BindingStateUpdate(key: nodes[Int(id)].key, state: binding.stateJSON))
        }
    }

    private func applyFollow(_ follow: (slot: Int, from: Int32?, to: Key?), binding: DerivedBinding, at id: Int32) {
        if let old = follow.from { removeDependent(id, from: old) }
        guard let key = follow.to else { return }
        let target = node(for: key)
        nodes[Int(target)].dependents.append(id)
        if case .flatMap(var s) = binding.states[follow.slot] {
            s.targetNode = target
            binding.states[follow.slot] = .flatMap(s)
        }
        raise(id, to: nodes[Int(target)].height + 1)
    }
}
