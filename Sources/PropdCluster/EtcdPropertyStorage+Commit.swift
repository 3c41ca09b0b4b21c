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
    /// outcome etcd could not tell is looked up by the transaction's id in
    /// `marker`, the key that carries it.
    ///
    /// When a compare fails, the failure branch reads back the newest write
    /// to every compared key or range, and to `head`: the newest of them is
    /// a revision under the prefix (so the watch brings it) at or after the
    /// change that failed the compare, or the delete whose request put
    /// `head`. The request runs again once the mirror has it.
    func send(_ compares: [EtcdCompare], _ operations: [EtcdOperation], marker: [UInt8], number: UInt64)
        -> EventLoopFuture<SendOutcome>
    {
        let mirror = mirror
        let outcome = writer.loop.makePromise(of: SendOutcome.self)
        let head = EtcdKeyRange.key(mirror.layout.head)
        var readBack = compares.map { EtcdOperation.newest($0.keys) }
        if !compares.contains(where: { $0.keys == head }) { readBack.append(.newest(head)) }
        etcd.txnFuture(compares, success: operations, failure: readBack).whenComplete { result in
            switch result {
            case .success(let result) where result.succeeded:
                outcome.succeed(.committed(result.revision))
            case .success(let result):
                mirror.whenDelivered(result.newestReadBack) { outcome.succeed(.raced) }
            case .failure(let error as EtcdError) where error.code == .outcomeUnknown:
                outcome.completeWithTask { await self.resolve(number, marker: marker, after: error) }
            case .failure(let error):
                outcome.succeed(.failed(StoreError(etcd: error)))
            }
        }
        return outcome.futureResult
    }

    /// Whether transaction `number` was applied: read the newest write to
    /// `marker` and to `head` (linearizable) until etcd answers, let the
    /// mirror reach the newer, and look the id up. Had the transaction
    /// applied, that revision is at or after it: `marker` still has it or
    /// a later write, or was deleted by a request that put `head`. Not
    /// applied counts as a lost race: the request runs again.
    private func resolve(_ number: UInt64, marker: [UInt8], after unknown: EtcdError) async -> SendOutcome {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: etcd.configuration.unavailableAfter * 2)
        while true {
            do {
                let marked = try await etcd.range(.key(marker))
                let head = try await etcd.range(.key(mirror.layout.head))
                let newest = (marked.keyValues + head.keyValues).map(\.modRevision).max() ?? 0
                await mirror.wait(for: newest)
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

extension EtcdTxnResult {
    /// The newest `mod_revision` among the keys a failure branch read back (0 for none).
    var newestReadBack: Int64 {
        results.reduce(0) { newest, result in
            guard case .range(let read) = result else { return newest }
            return max(newest, read.keyValues.first?.modRevision ?? 0)
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
