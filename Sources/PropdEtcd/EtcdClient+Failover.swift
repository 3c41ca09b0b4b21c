/// Whether a request may be sent again after an attempt that may have been applied.
enum EtcdReplay: Sendable {
    /// Reads, and writes that converge when repeated (a campaign on the same lease).
    case safe
    /// Writes: each is a revision, so a second copy is a second write.
    case unsafe
}

extension EtcdClient {
    /// Runs `attempt` on one member after another until one answers, for at
    /// most `unavailableAfter` from the first failure of the streak.
    func withFailover<Result: Sendable>(
        _ replay: EtcdReplay,
        _ attempt: (EtcdConnection) async throws -> Result
    ) async throws -> Result {
        try await withFailover(replay, member: { member in try await member.withConnection(attempt) })
    }

    /// ``withFailover(_:_:)`` for a request that picks its route on the member itself.
    func withFailover<Result: Sendable>(
        _ replay: EtcdReplay,
        member attempt: (EtcdMember) async throws -> Result
    ) async throws -> Result {
        let clock = ContinuousClock()
        var giveUpAt: ContinuousClock.Instant?
        var pause = Duration.milliseconds(50)
        while true {
            var lastCause: (any Error)?
            for member in memberOrder() {
                do {
                    let result = try await attempt(member)
                    prefer(member)
                    return result
                } catch {
                    lastCause = try nextMember(after: error, on: member, replay)
                }
            }
            let now = clock.now
            let deadline = giveUpAt ?? now + configuration.unavailableAfter
            giveUpAt = deadline
            guard now < deadline else {
                throw EtcdError(
                    .unavailable,
                    "no etcd member of \(members.map(\.endpoint.description).joined(separator: ",")) answered for \(configuration.unavailableAfter)",
                    cause: lastCause)
            }
            // A pause between rounds, so a cluster electing a leader is not
            // hammered; bounded by the deadline.
            try await Task.sleep(for: min(pause, deadline - now))
            pause = min(pause * 2, .milliseconds(500))
        }
    }

    /// After an attempt on `member` failed with `error`: returns the cause
    /// to report if the next members fail too; throws when the failure
    /// ends the request (etcd's final word, or a write that may have been
    /// applied and must not be sent again).
    func nextMember(after error: any Error, on member: EtcdMember, _ replay: EtcdReplay) throws -> any Error {
        switch EtcdFailure(error) {
        case .cancelled:
            throw CancellationError()
        case .final(let error):
            prefer(member)
            throw error
        case .maybeApplied(let cause) where replay == .unsafe:
            throw EtcdError(
                .outcomeUnknown,
                "\(member.endpoint) failed while the write was in flight; it may have been applied",
                cause: cause)
        case .maybeApplied(let cause), .notApplied(let cause):
            return cause
        }
    }

    /// What a long-lived stream (a watch, a keep-alive, an observation) does
    /// when its member fails: returns to go on with the next member; throws
    /// when the failure is the stream's end (cancelled, or etcd's final word).
    static func continueStream(after error: any Error) throws {
        switch EtcdFailure(error) {
        case .cancelled: throw CancellationError()
        case .final(let error): throw error
        case .notApplied, .maybeApplied: return
        }
    }
}
