import PropdCore

extension BindingEngine {
    /// When `target` is downstream of `start` (reads it, directly or not), the
    /// cycle that `start` reading `target` would close, in "computed from"
    /// order: `[start, target, …, the key that reads start]`. Otherwise `nil`.
    func path(from start: Int32, to target: Int32) -> [Int32]? {
        if start == target { return [start] }
        var parent: [Int32: Int32] = [start: -1]
        var frontier: [Int32] = [start]
        let targetHeight = nodes[Int(target)].height
        while let current = frontier.popLast() {
            for next in nodes[Int(current)].dependents where parent[next] == nil {
                if next == target {
                    var chain: [Int32] = [target]
                    var walk = current
                    while walk != -1 {
                        chain.append(walk)
                        walk = parent[walk] ?? -1
                    }
                    // chain is target, …, start; start would be computed from target.
                    return [start] + chain.dropLast()
                }
                // Keys downstream of the target are higher than it and cannot lead back to it.
                guard nodes[Int(next)].height < targetHeight else { continue }
                parent[next] = current
                frontier.append(next)
            }
        }
        return nil
    }

    /// Raises `id` to at least `height`, and everything downstream with it.
    func raise(_ id: Int32, to height: Int32) {
        var work: [(Int32, Int32)] = [(id, height)]
        while let (current, minimum) = work.popLast() {
            guard nodes[Int(current)].height < minimum else { continue }
            nodes[Int(current)].height = minimum
            if nodes[Int(current)].queuedEpoch == epoch {
                queue.push(node: current, height: minimum)
            }
            for dependent in nodes[Int(current)].dependents { work.append((dependent, minimum + 1)) }
        }
    }

    /// The height a binding needs given what it reads now.
    func requiredHeight(of binding: DerivedBinding) -> Int32 {
        var height: Int32 = 0
        for source in binding.sourceNodes { height = max(height, nodes[Int(source)].height) }
        for followed in binding.followedNodes { height = max(height, nodes[Int(followed)].height) }
        return height + 1
    }

    func removeDependent(_ dependent: Int32, from source: Int32) {
        if let index = nodes[Int(source)].dependents.lastIndex(of: dependent) {
            nodes[Int(source)].dependents.remove(at: index)
        }
    }

    /// Recomputes every height from scratch (after a restore) and returns the
    /// nodes found on cycles, which the caller must unbind.
    func recomputeHeights() -> [[Int32]] {
        var mark = [UInt8](repeating: 0, count: nodes.count)  // 0 new, 1 on the stack, 2 done
        var cycles: [[Int32]] = []
        for root in nodes.indices where nodes[root].binding != nil && mark[root] == 0 {
            var stack: [(node: Int32, next: Int)] = [(Int32(root), 0)]
            mark[root] = 1
            while let (current, index) = stack.last {
                let reads = (nodes[Int(current)].binding.map { $0.sourceNodes + $0.followedNodes }) ?? []
                if index < reads.count {
                    stack[stack.count - 1].next += 1
                    let source = reads[index]
                    switch mark[Int(source)] {
                    case 0:
                        mark[Int(source)] = 1
                        stack.append((source, 0))
                    case 1:
                        let members = stack.map(\.node)
                        let start = members.lastIndex(of: source) ?? 0
                        cycles.append(Array(members[start...]))
                    default:
                        break
                    }
                } else {
                    stack.removeLast()
                    mark[Int(current)] = 2
                    var height: Int32 = 0
                    if nodes[Int(current)].binding != nil {
                        for source in reads { height = max(height, nodes[Int(source)].height + 1) }
                    }
                    nodes[Int(current)].height = height
                }
            }
        }
        return cycles
    }
}
