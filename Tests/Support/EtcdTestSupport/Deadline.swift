/// What a test waited for did not happen within its bound.
public struct DeadlinePassed: Error, CustomStringConvertible {
    public var waitingFor: String
    public var description: String { "timed out waiting for \(waitingFor)" }

    public init(waitingFor: String) {
        self.waitingFor = waitingFor
    }
}

/// Runs `body`, failing with ``DeadlinePassed`` when it takes longer than
/// `timeout` (the bound of a wait on an event, not a synchronization).
public func withDeadline<Result: Sendable>(
    _ timeout: Duration, waitingFor: String, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw DeadlinePassed(waitingFor: waitingFor)
        }
        return result
    }
}
