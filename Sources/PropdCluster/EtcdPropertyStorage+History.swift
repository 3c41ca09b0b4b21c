import Dispatch
public import PropdCore
import PropdEtcd
public import PropdStore
import Synchronization

/// The past, from etcd's MVCC history: a watch of the prefix from a
/// revision replays every revision since, in order, and fails with the
/// compacted revision when etcd no longer has it.
extension EtcdPropertyStorage {
    /// From the mirror when its recent change sets reach back to `since`;
    /// otherwise a blocking etcd round trip (callers on the cooperative pool
    /// use ``fetchChanges(after:limit:)``).
    public func changes(after since: Revision, limit: Int?) throws(StoreError) -> (changeSets: [ChangeSet], revision: Revision) {
        if let recent = recentChanges(after: since, limit: limit) { return recent }
        return try blocking { () async throws(StoreError) in try await self.fetchChanges(after: since, limit: limit) }
    }

    public func fetchChanges(after since: Revision, limit: Int?) async throws(StoreError)
        -> (changeSets: [ChangeSet], revision: Revision)
    {
        if let recent = recentChanges(after: since, limit: limit) { return recent }
        let space = mirror.space
        var changeSets = try await replay(after: since.rawValue, through: space.newestChange)
        if let limit, changeSets.count > limit { changeSets.removeLast(changeSets.count - max(0, limit)) }
        return (changeSets, Revision(space.revision))
    }

    /// The change sets after `since` from the mirror, or nil when its recent
    /// ones do not reach back that far.
    private func recentChanges(after since: Revision, limit: Int?) -> (changeSets: [ChangeSet], revision: Revision)? {
        let (recent, recentAfter, revision) = mirror.shared.withLock { ($0.recent, $0.recentAfter, $0.space.revision) }
        guard since.rawValue >= recentAfter else { return nil }
        var changeSets = recent.filter { $0.revision > since }
        if let limit, changeSets.count > limit { changeSets.removeLast(changeSets.count - max(0, limit)) }
        return (changeSets, Revision(revision))
    }

    /// A blocking etcd round trip (callers on the cooperative pool use
    /// ``fetchHistory(of:limit:before:)``).
    public func history(of key: Key, limit: Int?, before: Revision?) throws(StoreError) -> [Event] {
        try blocking { () async throws(StoreError) in try await self.fetchHistory(of: key, limit: limit, before: before) }
    }

    public func fetchHistory(of key: Key, limit: Int?, before: Revision?) async throws(StoreError) -> [Event] {
        let through = mirror.space.newestChange
        let changeSets = try await replayRetained(through: through)
        var events: [Event] = []
        for changeSet in changeSets.reversed() where before.map({ changeSet.revision < $0 }) ?? true {
            for change in changeSet.changes where change.key == key {
                events.append(change.event(at: changeSet.revision))
            }
            if let limit, events.count >= limit { break }
        }
        return events
    }

    public func oldestCompleteRevision() throws(StoreError) -> Revision {
        let through = mirror.space.newestChange
        guard through > 0 else { return Revision(1) }
        do {
            _ = try blocking { () async throws(StoreError) in try await self.replay(after: 0, through: 1) }
            return Revision(1)
        } catch {
            guard case .compacted(_, let oldest) = error else { throw error }
            return oldest
        }
    }

    /// Every change set after `since` through `through`, from etcd.
    /// - Throws: ``StoreError/compacted(since:oldest:)`` when etcd compacted past `since + 1`.
    func replay(after since: Int64, through: Int64) async throws(StoreError) -> [ChangeSet] {
        guard through > since else { return [] }
        let etcd = self.etcd
        let layout = mirror.layout
        let (updates, continuation) = AsyncThrowingStream.makeStream(of: [EtcdEvent].self)
        let watch = Task {
            do {
                try await etcd.watch(layout.everything, from: since + 1) { update in
                    if case .events(let events) = update { continuation.yield(events) }
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        defer { watch.cancel() }
        var changeSets: [ChangeSet] = []
        do {
            for try await events in updates {
                for event in events {
                    let revision = Revision(event.keyValue.modRevision)
                    if changeSets.last?.revision != revision {
                        if revision.rawValue > through { return changeSets }
                        changeSets.append(ChangeSet(revision: revision, changes: []))
                    }
                    guard case .row(.property, let key)? = layout.place(of: event.keyValue.key) else { continue }
                    let change: Change? =
                        event.kind == .delete ? .delete(key) : PropertyRecord(bytes: event.keyValue.value)?.change(of: key)
                    if let change { changeSets[changeSets.count - 1].changes.append(change) }
                }
                if let last = changeSets.last, last.revision.rawValue >= through { return changeSets }
            }
        } catch {
            if let error = error as? EtcdError, error.code == .compacted, let oldest = error.compactRevision {
                throw .compacted(since: Revision(since), oldest: Revision(oldest))
            }
            throw StoreError(etcd: error)
        }
        return changeSets
    }

    /// Every change set etcd still has, through `through`.
    func replayRetained(through: Int64) async throws(StoreError) -> [ChangeSet] {
        do {
            return try await replay(after: 0, through: through)
        } catch {
            guard case .compacted(_, let oldest) = error else { throw error }
            return try await replay(after: oldest.rawValue - 1, through: through)
        }
    }
}

/// Runs `operation` to its end and waits for it on this thread, for the
/// seam's synchronous reads of the past. Call it from an event loop or a
/// thread of one's own, never from the cooperative pool: `operation` may
/// need the pool's threads (README, "The cluster store").
func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws(StoreError) -> T) throws(StoreError) -> T {
    let outcome = Mutex<Result<T, StoreError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<T, StoreError>
        do throws(StoreError) {
            result = .success(try await operation())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { throw .closed }
    return try result.get()
}
