import PropdClient
import PropdCore

/// Reads an observation in the background and hands its events to a test
/// one condition at a time, so a test can wait for `synced`, then write,
/// then wait for the live events — each wait bounded by a timeout.
final class EventCollector {
    enum Item: Sendable {
        case event(Event)
        case failure(PropdClientError)
        case timeout(Int)
        case finished
    }

    struct Timeout: Error, CustomStringConvertible {
        var seen: [Event]
        var description: String { "timed out after \(seen.count) events: \(seen.suffix(5))" }
    }

    private let continuation: AsyncStream<Item>.Continuation
    private var iterator: AsyncStream<Item>.Iterator
    private let reader: Task<Void, Never>
    private var generation = 0
    /// Every event received so far.
    private(set) var all: [Event] = []

    init(_ events: PropertyEvents) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
        reader = Task {
            do {
                for try await event in events { continuation.yield(.event(event)) }
                continuation.yield(.finished)
            } catch {
                continuation.yield(.failure((error as? PropdClientError) ?? .malformedReply("\(error)")))
            }
        }
    }

    deinit {
        reader.cancel()
        continuation.finish()
    }

    /// Events until `done` holds for the events taken by this call.
    func take(timeout: Duration = .seconds(60), until done: ([Event]) -> Bool) async throws -> [Event] {
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
            case .timeout(let generation) where generation == mine: throw Timeout(seen: taken)
            case .timeout: continue
            case .finished: throw Timeout(seen: taken)
            }
        }
        throw Timeout(seen: taken)
    }

    /// Waits for the `synced` marker and returns the backlog before it.
    func synced(timeout: Duration = .seconds(60)) async throws -> [Event] {
        try await take(timeout: timeout) { $0.last?.kind == .synced }.dropLast()
    }
}
