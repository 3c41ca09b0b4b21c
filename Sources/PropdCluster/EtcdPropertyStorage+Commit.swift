import NIOCore
import PropdCore
import PropdEtcd
import PropdStore

extension EtcdPropertyStorage {
    /// How a request's transaction ended.
    enum SendOutcome: Sendable {
        /// Applied at this revision.
        case committed(Int64)
        /// A compare failed: nothing applied, the mirror has caught up.
        case raced
        case failed(StoreError)
    }

    /// Sends one transaction and learns its fate, on the writer's loop; an
    /// outcome etcd could not tell is looked up by the transaction's id in `head`.
    func send(_ compares: [EtcdCompare], _ operations: [EtcdOperation], number: UInt64)
        -> EventLoopFuture<SendOutcome>
    {
        let mirror = mirror
        let outcome = writer.loop.makePromise(of: SendOutcome.self)
        etcd.txnFuture(compares, success: operations, failure: [.range(.key(mirror.layout.head))]).whenComplete { result in
            switch result {
            case .success(let result) where result.succeeded:
                outcome.succeed(.committed(result.revision))
            case .success(let result):
                // Every write request changes `head`: once the mirror has head's
                // revision, it has whatever made the compare fail.
                var head: Int64 = 0
                if case .range(let read)? = result.results.first { head = read.keyValues.first?.modRevision ?? 0 }
                mirror.whenDelivered(head) { outcome.succeed(.raced) }
            case .failure(let error as EtcdError) where error.code == .outcomeUnknown:
                outcome.completeWithTask { await self.resolve(number, after: error) }
            case .failure(let error):
                outcome.succeed(.failed(StoreError(etcd: error)))
            }
        }
        return outcome.futureResult
    }

    /// Whether transaction `number` was applied: read `head` (linearizable)
    /// until etcd answers, let the mirror reach it, and look the id up. Not
    /// applied counts as a lost race: the request runs again.
    private func resolve(_ number: UInt64, after unknown: EtcdError) async -> SendOutcome {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: etcd.configuration.unavailableAfter * 2)
        while true {
            do {
                let read = try await etcd.range(.key(mirror.layout.head))
                await mirror.wait(for: read.keyValues.first?.modRevision ?? 0)
                if let revision = mirror.revision(ofTransaction: number) { return .committed(revision) }
                return .raced
            } catch {
                if clock.now >= deadline || Task.isCancelled {
                    return .failed(.outcomeUnknown(message: "\(unknown); then: \(error)"))
                }
            }
        }
    }
}

extension SpaceMirror {
    /// The change set the mirror built for `revision`, while it is recent.
    func changeSet(at revision: Int64) -> ChangeSet? {
        shared.withLock { shared in
            shared.recent.last(where: { $0.revision.rawValue == revision })
        }
    }
}

extension StoreError {
    /// An etcd failure in the seam's terms.
    init(etcd error: any Error) {
        guard let error = error as? EtcdError else {
            self = .unavailable(message: "\(error)")
            return
        }
        switch error.code {
        case .unavailable: self = .unavailable(message: error.description)
        case .outcomeUnknown: self = .outcomeUnknown(message: error.description)
        case .tooManyOperations: self = .limitExceeded(limit: "etcd --max-txn-ops", maximum: 0)
        case .requestTooLarge: self = .limitExceeded(limit: "etcd --max-request-bytes", maximum: 0)
        case .noSpace: self = .limitExceeded(limit: "etcd --quota-backend-bytes (NOSPACE alarm)", maximum: 0)
        case .compacted:
            let oldest = Revision(error.compactRevision ?? 0)
            self = .compacted(since: Revision(max(0, oldest.rawValue - 1)), oldest: oldest)
        default: self = .storage(code: -1, message: "etcd: \(error.description)")
        }
    }
}
