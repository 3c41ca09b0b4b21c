/// A min-heap of nodes by height: propagation pops the lowest first, so every
/// key is evaluated after everything it reads.
struct HeightQueue {
    private var heap: [UInt64] = []

    var isEmpty: Bool { heap.isEmpty }

    mutating func push(node: Int32, height: Int32) {
        heap.append(UInt64(UInt32(height)) << 32 | UInt64(UInt32(node)))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (node: Int32, height: Int32)? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { break }
                var smallest = left
                if left + 1 < heap.count, heap[left + 1] < heap[left] { smallest = left + 1 }
                guard heap[smallest] < heap[parent] else { break }
                heap.swapAt(smallest, parent)
                parent = smallest
            }
        }
        return (Int32(truncatingIfNeeded: top & 0xFFFF_FFFF), Int32(truncatingIfNeeded: top >> 32))
    }

    mutating func removeAll() { heap.removeAll(keepingCapacity: true) }
}
