import Synchronization

/// Items handed from a reader thread (a pipe, a notify socket, a process
/// exit) to one waiting test, each wait bounded by a timeout: tests wait on
/// the event itself, never on time.
final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var closed = false
        var waiter: (id: Int, continuation: CheckedContinuation<Item?, Never>)?
        var nextID = 0
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    func push(_ item: Item) {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.items.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    /// No more items will come: a waiting or later `next` returns nil once the queue is empty.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume(returning: nil)
    }

    /// The next item, or nil after `timeout` or once closed and drained.
    func next(timeout: Duration) async -> Item? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        // Bounds the wait; the test proceeds on the item, not on time.
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let immediate = state.withLock { state -> Item?? in
                if !state.items.isEmpty { return .some(state.items.removeFirst()) }
                if state.closed || state.expired.contains(id) { return .some(nil) }
                state.waiter = (id, continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            guard let waiter = state.waiter, waiter.id == id else {
                state.expired.insert(id)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: nil)
    }

    /// Takes items until one satisfies `done`; returns all taken (the last
    /// one satisfying `done`), or nil on timeout or close.
    func take(timeout: Duration, until done: (Item) -> Bool) async -> (taken: [Item], found: Bool) {
        let deadline = ContinuousClock.now + timeout
        var taken: [Item] = []
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, let item = await next(timeout: remaining) else { return (taken, false) }
            taken.append(item)
            if done(item) { return (taken, true) }
        }
    }
}
