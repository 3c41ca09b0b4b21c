import PropdCore
import PropdService

/// A service subscription's events, read in the background and taken by
/// the test one awaited condition at a time.
final class EventFeed {
    private enum Item: Sendable {
        case event(Event)
        case timeout(Int)
        case finished
    }

    struct TimedOut: Error, CustomStringConvertible {
        var waitingFor: String
        var seen: [Event]
        var description: String { "timed out waiting for \(waitingFor); seen \(seen.suffix(5))" }
    }

    private let continuation: AsyncStream<Item>.Continuation
    private var iterator: AsyncStream<Item>.Iterator
    private let reader: Task<Void, Never>
    private var generation = 0

    init(_ subscription: Subscription) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
        reader = Task {
            // Ends (as `finished`) with the subscription, or throws SlowConsumer: either way, no more events.
            _ = try? await {
                for try await encoded in subscription.events { continuation.yield(.event(encoded.event)) }
            }()
            continuation.yield(.finished)
        }
    }

    deinit {
        reader.cancel()
        continuation.finish()
    }

    /// Events until `done` holds for the events taken by this call; bounded by `timeout`.
    func take(
        _ waitingFor: String, timeout: Duration = .seconds(30), until done: ([Event]) -> Bool
    ) async throws -> [Event] {
        generation += 1
        let mine = generation
        let continuation = self.continuation
        // Bounds the wait; the test proceeds on the event.
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
                if done(taken) { return taken }
            case .timeout(let generation) where generation == mine: throw TimedOut(waitingFor: waitingFor, seen: taken)
            case .timeout: continue
            case .finished: throw TimedOut(waitingFor: waitingFor, seen: taken)
            }
        }
        throw TimedOut(waitingFor: waitingFor, seen: taken)
    }
}
