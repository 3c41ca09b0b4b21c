public import PropdCore

/// Events read in the background (from a client's observation or a
/// service's subscription) and handed to a test one condition at a time, so
/// a test can wait for `synced`, then write, then wait for the live events,
/// each wait bounded by a timeout.
public final class EventCollector {
    private enum Item: Sendable {
        case event(Event)
        case failure(any Error)
        case timeout(Int)
        case finished
    }

    /// A wait that ran out of time, or whose events ended, before its condition held.
    public struct TimedOut: Error, CustomStringConvertible {
        public var waitingFor: String
        public var seen: [Event]
        public var description: String { "timed out waiting for \(waitingFor) after \(seen.count) events: \(seen.suffix(5))" }
    }

    private let continuation: AsyncStream<Item>.Continuation
    private var iterator: AsyncStream<Item>.Iterator
    private let reader: Task<Void, Never>
    private var generation = 0
    /// Every event taken so far.
    public private(set) var all: [Event] = []

    /// Starts `read`, which hands each event it reads to its argument; the
    /// error it ends with, if any, ends the wait that meets it.
    public init(reading read: @escaping @Sendable (_ yield: @escaping @Sendable (Event) -> Void) async throws -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
        reader = Task {
            do {
                try await read { continuation.yield(.event($0)) }
                continuation.yield(.finished)
            } catch {
                continuation.yield(.failure(error))
            }
        }
    }

    deinit {
        reader.cancel()
        continuation.finish()
    }

    /// Events until `done` holds for the events taken by this call; bounded by `timeout`.
    public func take(
        _ waitingFor: String = "the events", timeout: Duration = .seconds(60), until done: ([Event]) -> Bool
    ) async throws -> [Event] {
        generation += 1
        let mine = generation
        let continuation = self.continuation
        // Bounds the wait; the test proceeds on the events, not on time.
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.yield(.timeout(mine))
        }
        defer { timer.cancel() }
        var taken: [Event] = []
        while let item = await iterator.next() {
            switch item {
            case .event(let event):
                taken.append(event)
                all.append(event)
                if done(taken) { return taken }
            case .failure(let error): throw error
            case .timeout(let generation) where generation == mine: throw TimedOut(waitingFor: waitingFor, seen: taken)
            case .timeout: continue
            case .finished: throw TimedOut(waitingFor: waitingFor, seen: taken)
            }
        }
        throw TimedOut(waitingFor: waitingFor, seen: taken)
    }

    /// Waits for the `synced` marker and returns the backlog before it.
    public func synced(timeout: Duration = .seconds(60)) async throws -> [Event] {
        try await take("synced", timeout: timeout) { $0.last?.kind == .synced }.dropLast()
    }
}
