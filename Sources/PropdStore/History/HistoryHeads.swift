/// The head of each history chain the writer has extended: the revision of
/// the key's newest history row, as the rule of `schema/003_history_chain.sql`
/// finds it. With it a Set binds its history row's `previous` instead of
/// having SQLite look the head up in `properties` and `deleted_heads`.
///
/// A key not here is looked up by the statement, as before any write. What
/// could make a remembered head differ from the rule's is forgotten: a key
/// whose `properties` row changes without a history row (``forget(_:)``),
/// and every key when SQL is rolled back (``forgetAll()``), since the rows a
/// rolled-back write appended are gone.
///
/// Used by the group-commit writer alone (see ``WriterLocal``).
final class HistoryHeads {
    private var revisions: [String: Int64] = [:]
    /// The most keys remembered. Past it all are forgotten at once and
    /// remembered again as they are written: a hot set smaller than this
    /// stays remembered, and memory stays bounded whatever the key count.
    let capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
    }

    /// The revision of `key`'s newest history row, when known.
    func head(of key: String) -> Int64? {
        revisions[key]
    }

    /// Makes `revision` the head of `key` when its head is known, and
    /// returns the head it replaces; `nil`, changing nothing, when unknown.
    /// One look-up: it runs for every Set.
    func replaceHead(of key: String, with revision: Int64) -> Int64? {
        guard let index = revisions.index(forKey: key) else { return nil }
        defer { revisions.values[index] = revision }
        return revisions.values[index]
    }

    /// `key` got a history row at `revision`, its new head.
    func appended(_ key: String, at revision: Int64) {
        if revisions.count >= capacity, revisions[key] == nil { revisions.removeAll(keepingCapacity: true) }
        revisions[key] = revision
    }

    func forget(_ key: String) {
        revisions[key] = nil
    }

    func forgetAll() {
        revisions.removeAll(keepingCapacity: true)
    }

    var count: Int { revisions.count }
}
