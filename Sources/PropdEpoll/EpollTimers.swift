import HeapModule
import NIOCore

/// A loop's scheduled tasks: a min-heap of deadlines, and the tasks by id
/// so that a cancellation removes its task at once (its entry in the heap
/// is skipped when it comes up).
struct EpollTimers {
    /// A scheduled task: what runs at its deadline, and what tells its
    /// waiter when the loop ends first.
    struct Timer {
        let run: @Sendable () -> Void
        let abandon: @Sendable () -> Void
    }

    /// Ordered by deadline, then by scheduling order.
    private struct Entry: Comparable {
        let deadline: NIODeadline
        let id: UInt64

        static func < (a: Entry, b: Entry) -> Bool { (a.deadline, a.id) < (b.deadline, b.id) }
    }

    private var heap = Heap<Entry>()
    private var tasks: [UInt64: Timer] = [:]
    private var nextID: UInt64 = 0

    /// The earliest deadline of a task not cancelled.
    var earliest: NIODeadline? {
        mutating get {
            while let top = heap.min, tasks[top.id] == nil { heap.removeMin() }
            return heap.min?.deadline
        }
    }

    mutating func add(deadline: NIODeadline, _ timer: Timer) -> UInt64 {
        nextID += 1
        tasks[nextID] = timer
        heap.insert(Entry(deadline: deadline, id: nextID))
        return nextID
    }

    /// Whether the task was still scheduled (it had neither run nor been cancelled).
    mutating func cancel(_ id: UInt64) -> Bool {
        tasks.removeValue(forKey: id) != nil
    }

    /// Moves the tasks due at `now` into `due`, earliest first.
    mutating func takeDue(now: NIODeadline, into due: inout [@Sendable () -> Void]) {
        while let top = heap.min, top.deadline <= now {
            heap.removeMin()
            if let timer = tasks.removeValue(forKey: top.id) { due.append(timer.run) }
        }
    }

    /// Removes every task not yet run, for its waiter to be told.
    mutating func takeAll() -> [Timer] {
        defer {
            heap = Heap()
            tasks = [:]
        }
        return heap.unordered.compactMap { tasks[$0.id] }
    }
}
