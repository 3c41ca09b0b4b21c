/// The daemon's one ordered set of deadlines: every pending timer of every
/// time operator (`throttle`, `delay`, `timeout`) and every expiring key, at
/// most one deadline per owner. The service arms a single wake-up for
/// ``earliest`` and takes everything due with ``removeDue(atOrBefore:)``.
///
/// ```swift
/// var schedule = DeadlineSchedule<String>()
/// schedule.set("a", at: 300)
/// schedule.set("a", at: 400)      // replaces 300
/// schedule.removeDue(atOrBefore: 350)  // []
/// schedule.removeDue(atOrBefore: 400)  // ["a"]
/// ```
///
/// A binary min-heap with lazy removal: replacing or cancelling a deadline
/// updates `current` at once and leaves the old heap entry behind; an entry
/// whose deadline is no longer its owner's current one is dropped when it
/// surfaces. The heap is rebuilt from `current` when stale entries outnumber
/// live ones, so memory stays within twice the live deadlines (heartbeats
/// replace deadlines constantly).
public struct DeadlineSchedule<Owner: Hashable> {
    private struct Entry {
        var deadline: Int64
        var owner: Owner
    }

    /// The live deadline of each owner: the truth the heap is checked against.
    private var current: [Owner: Int64] = [:]
    private var heap: [Entry] = []

    public init() {}

    /// The number of pending deadlines.
    public var count: Int { current.count }

    public var isEmpty: Bool { current.isEmpty }

    /// The earliest pending deadline, in milliseconds since the epoch.
    public var earliest: Int64? { heap.first?.deadline }

    /// The pending deadline of `owner`.
    public func deadline(of owner: Owner) -> Int64? { current[owner] }

    /// Arms, replaces (`deadline` given) or cancels (`nil`) the deadline of
    /// `owner`, and returns the deadline it had.
    @discardableResult
    public mutating func set(_ owner: Owner, at deadline: Int64?) -> Int64? {
        guard let deadline else {
            guard let old = current.removeValue(forKey: owner) else { return nil }
            if old == heap.first?.deadline { dropStaleTop() }
            compactIfMostlyStale()
            return old
        }
        let old = current.updateValue(deadline, forKey: owner)
        guard old != deadline else { return old }
        push(Entry(deadline: deadline, owner: owner))
        // Only an entry at the old deadline can have gone stale at the top
        // (looking it up on every call would cost a hash per heartbeat).
        if let old, old == heap.first?.deadline { dropStaleTop() }
        compactIfMostlyStale()
        return old
    }

    /// Removes and returns every owner whose deadline is at or before `now`,
    /// earliest first (owners due at the same instant in no particular order).
    public mutating func removeDue(atOrBefore now: Int64) -> [Owner] {
        var due: [Owner] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if current[top.owner] == top.deadline {
                current[top.owner] = nil
                due.append(top.owner)
            }
        }
        dropStaleTop()
        return due
    }

    /// Makes room for `count` more deadlines at once (a restart restoring many).
    public mutating func reserveCapacity(_ count: Int) {
        current.reserveCapacity(current.count + count)
        heap.reserveCapacity(heap.count + count)
    }

    /// Forgets every deadline.
    public mutating func removeAll() {
        current.removeAll()
        heap.removeAll()
    }

    // MARK: The heap

    /// Keeps the invariant that the top entry is live, so ``earliest`` is exact.
    private mutating func dropStaleTop() {
        while let top = heap.first, current[top.owner] != top.deadline { popTop() }
    }

    private mutating func compactIfMostlyStale() {
        guard heap.count > 64, heap.count > 2 * current.count else { return }
        heap = current.map { Entry(deadline: $0.value, owner: $0.key) }
        // Floyd's bottom-up heap construction: O(n).
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(from: 0)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, heap[left + 1].deadline < heap[left].deadline { smallest = left + 1 }
            guard heap[smallest].deadline < heap[parent].deadline else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
