import PropdCore
import PropdStore

/// The store as the subscription hub's backlog: each read is one WAL
/// snapshot, tagged with the revision it saw.
struct StoreBacklog: BacklogSource {
    let store: any PropertyStorage

    func currentRevision() throws -> Revision {
        store.revision
    }

    func currentProperties(matching patterns: [KeyPattern]) throws -> (properties: [Property], revision: Revision) {
        do {
            if patterns.count == 1 { return try store.list(pattern: patterns[0]) }
            // Several patterns: one snapshot of everything they can match, filtered.
            let (all, revision) = try store.list(pattern: nil)
            return (all.filter { property in patterns.contains { $0.matches(property.key) } }, revision)
        } catch {
            throw ServiceError(error)
        }
    }

    // The past is awaited: a subscription starts on the cooperative pool,
    // and a cluster store reads it from etcd.

    func history(of key: Key, last count: Int, through revision: Revision) async throws -> [Event] {
        guard count > 0 else { return [] }
        do {
            // Deletions are not values: read past them until `count` values are found.
            let entries = try await store.fetchHistory(of: key, limit: nil, before: revision.next)
            return Array(entries.lazy.filter { $0.kind != .delete }.prefix(count).reversed())
        } catch {
            throw ServiceError(error)
        }
    }

    func changes(after since: Revision) async throws -> (changeSets: [ChangeSet], revision: Revision) {
        do {
            return try await store.fetchChanges(after: since, limit: nil)
        } catch .compacted(let since, let oldest) {
            throw SubscriptionError.revisionCompacted(since: since, oldest: oldest)
        } catch {
            throw ServiceError(error)
        }
    }
}
