import PropdCore

/// One key the engine knows: a source of some binding, a derived key, or both.
/// Nodes are addressed by index so propagation never hashes key names.
struct KeyNode {
    let key: Key
    /// 0 for plain keys; for a derived key, more than the height of every key
    /// it reads (statically or through flatMap). Evaluating by rising height
    /// makes propagation glitch-free.
    var height: Int32 = 0
    /// Nodes of the bindings that read this key (one entry per static use
    /// and per flatMap following it).
    var dependents: [Int32] = []
    var binding: DerivedBinding?
    /// The propagation in which this key last changed, and how.
    var changedEpoch: UInt32 = 0
    var change: Emission = .nothing
    /// The propagation in which this node was last queued.
    var queuedEpoch: UInt32 = 0

    init(key: Key) { self.key = key }
}

/// A derived key's compiled binding and its live operator state.
final class DerivedBinding {
    let expression: String
    let compiled: CompiledBinding
    /// The nodes of `compiled.sources`, index for index.
    let sourceNodes: [Int32]
    // Unchecked for the same reason as the engine's storage (see
    // `BindingEngine.nodes`): one owner, and `states` is swapped out while
    // the binding evaluates, so no two accesses overlap.
    @exclusivity(unchecked) var states: [OperatorState]
    @exclusivity(unchecked) var error: String?

    init(expression: String, compiled: CompiledBinding, sourceNodes: [Int32]) {
        self.expression = expression
        self.compiled = compiled
        self.sourceNodes = sourceNodes
        self.states = compiled.initialStates
    }

    /// The nodes this binding follows through flatMap right now.
    var followedNodes: [Int32] {
        states.compactMap { if case .flatMap(let s) = $0 { s.targetNode } else { nil } }
    }

    var hasFlatMap: Bool { compiled.usesFlatMap }

    /// The earliest pending timer among the states (time operators).
    func earliestDeadline() -> Int64? {
        var earliest: Int64?
        for state in states {
            if let d = state.deadline { earliest = min(earliest ?? d, d) }
        }
        return earliest
    }
}
