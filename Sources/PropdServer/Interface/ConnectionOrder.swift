import Synchronization

/// Keeps each connection's calls in the order the client sent them, as far
/// as anyone could tell: a read sees exactly the writes sent before it and
/// none sent after it. Consecutive writes still go to the writer together
/// (so a client's pipelined writes share group commits), and consecutive
/// reads run together; only where a read follows a write, or a write a read,
/// does the second wait for the first group to finish. With nothing in
/// flight on the connection — the usual case — a call starts at once.
final class ConnectionOrder: Sendable {
    enum Kind: Sendable {
        case read
        case write
    }

    /// Starts a call; the call invokes `done` exactly once, when done.
    /// `alone` tells whether it is all the connection has in flight (a
    /// client waiting for each reply, not one pipelining).
    typealias Start = @Sendable (_ done: @escaping @Sendable () -> Void, _ alone: Bool) -> Void

    private struct Connection {
        var running = 0
        var runningKind: Kind = .read
        var queue: [(kind: Kind, start: Start)] = []
        var queueHead = 0

        var hasQueue: Bool { queueHead < queue.count }
    }

    private let connections = Mutex<[UInt64: Connection]>([:])

    /// Runs `start` on `connection` as soon as the calls before it allow.
    func run(_ kind: Kind, on connection: UInt64, _ start: @escaping Start) {
        let now: (start: Bool, alone: Bool) = connections.withLock { connections in
            var state = connections[connection, default: Connection()]
            defer { connections[connection] = state }
            if !state.hasQueue, state.running == 0 || state.runningKind == kind {
                state.running += 1
                state.runningKind = kind
                return (true, state.running == 1)
            }
            state.queue.append((kind, start))
            return (false, false)
        }
        if now.start { start({ self.finished(on: connection) }, now.alone) }
    }

    private func finished(on connection: UInt64) {
        let (ready, alone): ([Start], Bool) = connections.withLock { connections in
            guard var state = connections[connection] else { return ([], false) }
            state.running -= 1
            var ready: [Start] = []
            if state.running == 0, state.hasQueue {
                let kind = state.queue[state.queueHead].kind
                while state.hasQueue, state.queue[state.queueHead].kind == kind {
                    ready.append(state.queue[state.queueHead].start)
                    state.queueHead += 1
                }
                state.running = ready.count
                state.runningKind = kind
                if !state.hasQueue {
                    state.queue = []
                    state.queueHead = 0
                }
            }
            // Forget an idle connection.
            connections[connection] = (state.running == 0 && !state.hasQueue) ? nil : state
            return (ready, ready.count == 1 && !state.hasQueue)
        }
        for start in ready { start({ self.finished(on: connection) }, alone) }
    }
}
