public import PropdCore

/// Where a new subscription reads what happened before it: the store
/// implements it. Every method reads one consistent snapshot and reports (or is
/// bounded by) the store revision of that snapshot, which becomes the revision
/// of the `synced` marker.
///
/// A synchronous implementation satisfies these `async` requirements.
public protocol BacklogSource: Sendable {
    /// The store's current revision (for `initial: false`, where nothing else is read).
    func currentRevision() async throws -> Revision

    /// The current properties whose key matches any of `patterns`, sorted by
    /// key, and the store revision they were read at.
    func currentProperties(matching patterns: [KeyPattern]) async throws -> (properties: [Property], revision: Revision)

    /// The last `count` values of `key` (its `set` and `error` entries, not
    /// its deletions) with a revision at or below `revision`, OLDEST FIRST, as
    /// events; the hub turns them into `replay` events.
    func history(of key: Key, last count: Int, through revision: Revision) async throws -> [Event]

    /// Every change set with a revision above `since`, in revision order,
    /// including deletes and derived `error` changes as history holds them,
    /// and the store revision they were read at (the last of them, or later).
    ///
    /// - Throws: ``SubscriptionError/revisionCompacted(since:oldest:)`` when
    ///   history no longer reaches back to `since + 1`.
    func changes(after since: Revision) async throws -> (changeSets: [ChangeSet], revision: Revision)
}
