public import PropdCore
import PropdStore

extension PropertyService {
    /// `Get(keys, revision)`: the properties as they were at `revision`,
    /// read from history, in the order asked.
    ///
    /// Each key's newest history row at or below `revision` gives its value
    /// then (an `error` row: the value it kept, and the error). History is
    /// complete above the compaction horizon, so a revision below it is
    /// `revisionCompacted`; at or above it a key's state is known unless its
    /// rows up to `revision` were compacted away while later ones were kept,
    /// which is `revisionCompacted` too.
    ///
    /// - Throws: `noSuchKey` for a key that did not exist at `revision`;
    ///   `revisionAhead` for a revision the store has not reached.
    public func get(_ keys: [Key], at revision: Revision) throws(ServiceError) -> [Property] {
        do {
            let current = store.revision
            guard revision <= current else { throw ServiceError.revisionAhead(revision: revision, current: current) }
            let oldest = try store.oldestCompleteRevision()
            // Changes after `oldest - 1` are all kept; the state at R needs R >= oldest - 1.
            guard revision.rawValue >= oldest.rawValue - 1 else {
                throw ServiceError.revisionCompacted(since: revision, oldest: oldest)
            }
            var properties: [Property] = []
            properties.reserveCapacity(keys.count)
            for key in keys {
                properties.append(try property(key, at: revision, oldest: oldest))
            }
            return properties
        } catch let error as ServiceError {
            throw error
        } catch let error as StoreError {
            throw ServiceError(error)
        } catch {
            throw ServiceError.from(error)
        }
    }

    private func property(_ key: Key, at revision: Revision, oldest: Revision) throws -> Property {
        let now = try store.get([key]).properties.first ?? nil
        guard let row = try store.history(of: key, limit: 1, before: revision.next).first else {
            // No kept change at or before R. The key did not exist then if
            // nothing was ever compacted, if it has no history at all, or if
            // its oldest kept row is its creation (any earlier life ended at
            // or below the horizon, so at or before R).
            let kept = oldest.rawValue <= 1 ? [] : try store.history(of: key)
            if let oldestRow = kept.last, now?.created != oldestRow.revision || oldestRow.kind != .set {
                throw ServiceError.revisionCompacted(since: revision, oldest: oldest)
            }
            throw ServiceError.noSuchKey(key.rawValue)
        }
        guard row.kind != .delete else { throw ServiceError.noSuchKey(key.rawValue) }
        return Property(
            key: key, value: row.value, revision: row.revision,
            created: try created(key, lastChange: row.revision, now: now),
            binding: nil, error: row.kind == .error ? row.error : nil)
    }

    /// The revision that created the life of `key` whose change at
    /// `lastChange` is kept: the current life's when it began by then, else
    /// the oldest kept row after the delete that preceded `lastChange`.
    private func created(_ key: Key, lastChange: Revision, now: Property?) throws -> Revision {
        if let now, now.created <= lastChange { return now.created }
        var created = lastChange
        for row in try store.history(of: key, before: lastChange) {
            if row.kind == .delete { break }
            created = row.revision
        }
        return created
    }
}
