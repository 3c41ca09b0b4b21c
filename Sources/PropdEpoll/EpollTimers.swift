import NIOCore

/// A loop's scheduled tasks: a binary min-heap of deadlines, and the tasks
/// by id so that a cancellation removes its task at once (its entry in the
/// heap is skipped when it comes up).
struct EpollTimers {
    /// A scheduled task: what runs at its deadline, and what tells its
    /// waiter when the loop ends first.
    struct Timer {
        let run: @Sendable () -> Void
        let abandon: @Sendable () -> Void
    }

    private var heap: [(deadline: NIODeadline, id: UInt64)] = []
    private var tasks: [UInt64: Timer] = [:]
    private var nextID: UInt64 = 0

    /// The earliest deadline of a task not cancelled.
    var earliest: NIODeadline? {
        mutating get {
            while let top = heap.first, tasks[top.id] == nil { popTop() }
            return heap.first?.deadline
        }
    }

    mutating func add(deadline: NIODeadline, _ timer: Timer) -> UInt64 {
        nextID += 1
        tasks[nextID] = timer
        heap.append((deadline, nextID))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return nextID
    }

    /// Whether the task was still scheduled (it had neither run nor been cancelled).
    mutating func cancel(_ id: UInt64) -> Bool {
        tasks.removeValue(forKey: id) != nil
    }

    /// Moves the tasks due at `now` into `due`, earliest first.
    mutating func takeDue(now: NIODeadline, into due: inout [@Sendable () -> Void]) {
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let timer = tasks.removeValue(forKey: top.id) { due.append(timer.run) }
        }
    }

    /// Removes every task not yet run, for its waiter to be told.
    mutating func takeAll() -> [Timer] {
        defer {
            heap = []
            tasks = [:]
        }
        return heap.compactMap { tasks[$0.id] }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && heap[right].deadline < heap[left].deadline ? right : left
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}
