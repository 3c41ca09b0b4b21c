import EtcdTestSupport
import PropdEtcd

/// Runs a watch in the background and hands its updates to the test in
/// order, each awaited with a timeout.
final class WatchRecorder: Sendable {
    private let updates: AsyncStream<EtcdWatchUpdate>
    private let continuation: AsyncStream<EtcdWatchUpdate>.Continuation
    private let task: Task<Void, any Error>

    init(
        _ etcd: EtcdClient, _ keys: EtcdKeyRange, from revision: Int64, progressNotify: Bool = false,
        knownThrough: (@Sendable () -> Int64)? = nil
    ) {
        (updates, continuation) = AsyncStream.makeStream(of: EtcdWatchUpdate.self)
        let continuation = continuation
        task = Task {
            defer { continuation.finish() }
            try await etcd.watch(keys, from: revision, progressNotify: progressNotify, knownThrough: knownThrough) { update in
                continuation.yield(update)
            }
        }
    }

    /// Collects events until `count` have arrived (or the timeout passes).
    func events(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [EtcdEvent] {
        let updates = self.updates
        return try await withDeadline(timeout, waitingFor: "\(count) watch events") {
            var events: [EtcdEvent] = []
            for await update in updates {
                if case .events(let batch) = update { events += batch }
                if events.count >= count { return events }
            }
            return events
        }
    }

    /// How the watch ended: the error it threw.
    func failure(timeout: Duration = .seconds(60)) async throws -> (any Error)? {
        let task = self.task
        return try await withDeadline(timeout, waitingFor: "the watch to end") {
            do {
                try await task.value
                return nil
            } catch {
                return error
            }
        }
    }

    func cancel() { task.cancel() }

    deinit { task.cancel() }
}
