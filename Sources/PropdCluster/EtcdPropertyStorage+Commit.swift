import PropdCore
import PropdEtcd
import PropdStore

extension EtcdPropertyStorage {
    /// Runs one write request to its end: the body on the mirror, then its
    /// transaction; again on the newer space while a compare fails.
    ///
    /// The transaction says `spaceChangedElsewhere` when another node
    /// changed bindings, operator state, expiries or commands since this
    /// node's previous request, and when the body runs again after a lost
    /// race: the service then rebuilds its engine from the space. The
    /// revision a request commits at is etcd's, in its ``Committed``.
    func commit<T: Sendable>(
        _ body: @Sendable (inout WriteTransaction) throws -> T
    ) async -> Result<Committed<T>, any Error> {
        var rerun = false
        while true {
            let (space, foreign) = mirror.shared.withLock { ($0.space, $0.foreignEngineChange) }
            let batch = EtcdWriteBatch(layout: mirror.layout, base: space)
            let changedElsewhere = rerun || foreign > engineSeen.exchange(space.revision, ordering: .relaxed)
            rerun = true
            var transaction = WriteTransaction(
                storage: batch, revision: Revision(space.revision + 1), spaceChangedElsewhere: changedElsewhere)
            let value: T
            let request: EtcdWriteBatch.Request
            let number = sequence.add(1, ordering: .relaxed).newValue
            do {
                value = try body(&transaction)
                request = try batch.request(transaction: mirror.transactionID(number), maxOperations: maxOperations)
            } catch {
                counters.withLock { $0.rejected += 1 }
                return .failure(error)
            }
            let outcome = await send(request, number: number)
            switch outcome {
            case .committed(let revision):
                counters.withLock { counters in
                    counters.requests += 1
                    counters.batches += 1
                    counters.largestBatch = max(counters.largestBatch, 1)
                }
                let changeSet = mirror.changeSet(at: revision)
                    ?? ChangeSet(revision: Revision(revision), changes: transaction.changes)
                return .success(Committed(value: value, changeSet: changeSet))
            case .raced:
                continue
            case .failed(let error):
                counters.withLock { $0.failedBatches += 1 }
                return .failure(error)
            }
        }
    }

    enum SendOutcome {
        /// Applied at this revision, and the mirror has it.
        case committed(Int64)
        /// A compare failed: nothing applied, the mirror has caught up.
        case raced
        case failed(StoreError)
    }

    /// Sends one transaction and learns its fate; an outcome etcd could not
    /// tell is looked up by the transaction's id in `head`.
    private func send(_ request: EtcdWriteBatch.Request, number: UInt64) async -> SendOutcome {
        do {
            let result = try await etcd.txn(
                request.compares, success: request.operations, failure: [.range(.key(mirror.layout.head))])
            if result.succeeded {
                await mirror.wait(for: result.revision)
                return .committed(result.revision)
            }
            // Every write request changes `head`: once the mirror has head's
            // revision, it has whatever made the compare fail.
            if case .range(let read)? = result.results.first {
                await mirror.wait(for: read.keyValues.first?.modRevision ?? 0)
            }
            return .raced
        } catch let error as EtcdError where error.code == .outcomeUnknown {
            return await resolve(number, after: error)
        } catch {
            return .failed(StoreError(etcd: error))
        }
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
