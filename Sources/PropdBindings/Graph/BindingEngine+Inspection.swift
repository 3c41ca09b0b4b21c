public import PropdCore

extension BindingEngine {
    /// Whether `key` has a binding (clients may not Set or Delete it).
    public func isDerived(_ key: Key) -> Bool {
        ids[key].map { nodes[Int($0)].binding != nil } ?? false
    }

    /// Whether a change of `key` can make ``propagate(_:lookup:)`` evaluate
    /// a binding (and so fail, past the recomputation bound).
    public func mayPropagate(from key: Key) -> Bool {
        !ids.isEmpty && ids[key] != nil
    }

    /// The binding of `key`: expression, sources, followed keys, error.
    public func binding(of key: Key) -> BindingInfo? {
        guard let id = ids[key], let binding = nodes[Int(id)].binding else { return nil }
        return info(binding, key: key)
    }

    /// Every binding, sorted by key (as `Bindings` returns them).
    public var bindings: [BindingInfo] {
        nodes.compactMap { node in node.binding.map { info($0, key: node.key) } }.sorted { $0.key < $1.key }
    }

    /// The bindings whose key matches `pattern`, sorted by key (`Bindings(pattern)`).
    public func bindings(matching pattern: KeyPattern) -> [BindingInfo] {
        nodes.compactMap { node in
            guard let binding = node.binding, pattern.matches(node.key) else { return nil }
            return info(binding, key: node.key)
        }.sorted { $0.key < $1.key }
    }

    /// The operator state of `key`'s binding as JSON, to persist; give it back
    /// to ``restore(_:)`` after a restart. `nil` when `key` has no binding.
    public func state(of key: Key) -> JSONValue? {
        guard let id = ids[key], let binding = nodes[Int(id)].binding else { return nil }
        return binding.stateJSON
    }

    /// The height of `key` in the dependency graph (0 for a plain key).
    public func height(of key: Key) -> Int {
        ids[key].map { Int(nodes[Int($0)].height) } ?? 0
    }

    /// Every edge of the graph, source → derived, labelled with the derived
    /// key's operators; flatMap's current targets are marked dynamic, and a
    /// key read only by `takeUntil` is a stop signal labelled `takeUntil`.
    /// Sorted by derived key, then source.
    public func edges(matching pattern: KeyPattern = .all) -> [BindingEdge] {
        var edges: [BindingEdge] = []
        for node in nodes {
            guard let binding = node.binding, pattern.matches(node.key) else { continue }
            for source in binding.compiled.sources {
                if binding.compiled.stopSignals.contains(source) {
                    edges.append(BindingEdge(source: source, derived: node.key, operators: ["takeUntil"],
                        isDynamic: false, isStopSignal: true))
                    continue
                }
                edges.append(BindingEdge(source: source, derived: node.key,
                    operators: binding.compiled.operatorLabels, isDynamic: false))
            }
            for followed in binding.followedNodes {
                edges.append(BindingEdge(source: nodes[Int(followed)].key, derived: node.key,
                    operators: binding.compiled.operatorLabels, isDynamic: true))
            }
        }
        return edges.sorted { ($0.derived, $0.source) < ($1.derived, $1.source) }
    }

    /// The graph in Graphviz DOT: one edge per source → derived key, labelled
    /// with the operator chain; flatMap and takeUntil edges dashed.
    public func dot(matching pattern: KeyPattern = .all) -> String {
        var lines = ["digraph propd {", "  rankdir=LR;"]
        for edge in edges(matching: pattern) {
            let label = edge.operators.joined(separator: " → ")
            let style = edge.isDynamic || edge.isStopSignal ? ", style=dashed" : ""
            lines.append("  \(quoted(edge.source.rawValue)) -> \(quoted(edge.derived.rawValue)) [label=\(quoted(label))\(style)];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func quoted(_ text: String) -> String {
        JSONValue.string(text).jsonString
    }

    private func info(_ binding: DerivedBinding, key: Key) -> BindingInfo {
        BindingInfo(key: key, expression: binding.expression, sources: binding.compiled.sources,
            followed: binding.followedNodes.map { nodes[Int($0)].key }, error: binding.error,
            operators: binding.compiled.operatorLabels)
    }
}

/// One edge of the binding graph.
public struct BindingEdge: Sendable, Hashable {
    public var source: Key
    public var derived: Key
    /// The derived key's operator chain, e.g. `["map", "throttle(300ms)"]`.
    public var operators: [String]
    /// True for a key followed through flatMap (it changes at run time).
    public var isDynamic: Bool
    /// True for a key named only by `takeUntil`: its changes end the stream,
    /// its values are not read.
    public var isStopSignal = false
}
