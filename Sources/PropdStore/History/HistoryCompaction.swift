import PropdCore

/// Trims history to at least the last `keep` entries of each key, a few keys
/// per batch inside the writer's own transaction, so it never stalls writers.
///
/// A key becomes due after `threshold` new changes since it was last trimmed;
/// a key that is never written again needs no trimming (it cannot grow).
/// Trimming is by key: every row of the key older than its `keep` newest goes.
/// The horizon is the highest revision any trimmed row had, so every change
/// after the horizon is still in history: ``PropertyStore/changes(after:)``
/// answers completely after it and refuses before it, never with a gap.
///
/// History has no index by key: a key's rows form a chain from its newest
/// row through `previous` (see `schema/003_history_chain.sql`). To find where
/// to cut without walking `keep` rows each time, the writer remembers, per
/// key written since the store opened, the runs of `threshold` consecutive
/// rows it saw: each run's first revision and length (``SeenRows``; a run
/// begun before `historyPerKey` changed keeps the length it has). The cut is
/// the first row of the newest runs that hold at least `keep` rows; that row
/// becomes the end of the chain (`previous` = NULL) and the rows behind it
/// are deleted. So a trimmed key keeps between `keep` and
/// `keep + threshold - 1` rows the writer has seen, plus any of the batch
/// being written.
///
/// The rows behind the cut go in one statement over the revisions from the
/// oldest row the writer saw to the cut, when those revisions hold few other
/// rows (``rangeScanLimit``): it reads every row in the range, but one
/// statement costs less than the two per row (read its `previous`, delete it)
/// of a walk down the chain. A key written among many others is walked.
///
/// The runs live in memory, a few per key written since opening (at most
/// `keep / threshold + 1`, 5 by default): after a restart a key is trimmed
/// again once it has been written `threshold` more times, walking its chain
/// the first time.
struct HistoryCompaction {
    private(set) var keep: Int
    private(set) var threshold: Int
    private(set) var horizon: Revision
    private var seen: [Key: SeenRows] = [:]
    private var due: [Key] = []
    private var dueHead = 0

    /// What the writer has seen of one key's history since the store opened.
    struct SeenRows {
        /// Each run's first row and number of rows, oldest first. A run
        /// grows to the `threshold` in force while it is the last.
        var runs: [(start: Int64, rows: Int)] = []
        var sinceTrim = 0
        /// Whether a trim since opening removed every row older than the
        /// first run (it ended the chain there): then none is left to look
        /// for behind it.
        var nothingOlder = false
    }

    init(keep: Int, horizon: Revision) {
        self.keep = keep
        self.threshold = max(1, keep / 4)
        self.horizon = horizon
    }

    var pendingKeys: Int { due.count - dueHead }

    /// Keeps at least `keep` entries per key from the next trim on (a reload).
    /// Runs already counted keep their length; new ones use the new threshold.
    /// A key written as often as the new threshold since its last trim, but
    /// not yet as often as the old one, is due at once.
    mutating func setKeep(_ keep: Int) {
        guard keep != self.keep else { return }
        let old = threshold
        self.keep = max(1, keep)
        threshold = max(1, self.keep / 4)
        for (key, rows) in seen where rows.sinceTrim >= threshold && rows.sinceTrim < old { due.append(key) }
    }

    /// Counts the committed changes: each is one history row of its key.
    mutating func note(_ changeSets: [ChangeSet]) {
        for changeSet in changeSets {
            for change in changeSet.changes {
                let becameDue = seen[change.key, default: SeenRows()].append(changeSet.revision.rawValue, threshold: threshold)
                if becameDue { due.append(change.key) }
            }
        }
    }

    /// The result of trimming inside a transaction that has not committed yet.
    struct Step {
        /// Per trimmed key (in `due` order), how many of its oldest runs went.
        var removedRuns: [Int] = []
        var horizon: Revision
        var trimmedKeys: Int { removedRuns.count }
    }

    /// Trims up to `limit` due keys in the open transaction, removing no row
    /// above `floor` (a key that would lose one is left for a later trim).
    func trim(_ statements: CompactionStatements, limit: Int, floor: Revision? = nil) throws -> Step {
        var step = Step(horizon: horizon)
        let end = min(due.count, dueHead + limit)
        guard dueHead < end else { return step }
        for key in due[dueHead..<end] {
            var removedRuns = 0
            if let seen = seen[key], let cut = try cut(key, seen, statements, removedRuns: &removedRuns) {
                if let floor, let newest = try previous(of: cut, key, statements), newest > floor.rawValue {
                    removedRuns = 0
                } else if let newestRemoved = try removeRows(
                    before: cut, of: key, oldestSeen: seen.runs.first?.start,
                    seenRows: seen.runs.prefix(removedRuns).reduce(0) { $0 + $1.rows },
                    olderRows: !seen.nothingOlder, statements)
                {
                    step.horizon = max(step.horizon, Revision(newestRemoved))
                }
            }
            let drop = statements.dropStaleDeletedHead
            try drop.bind(1, key.rawValue)
            try drop.execute()
            step.removedRuns.append(removedRuns)
        }
        if step.horizon > horizon {
            try statements.setHorizon.bind(1, step.horizon.rawValue)
            try statements.setHorizon.execute()
        }
        return step
    }

    /// Records a step whose transaction committed.
    mutating func committed(_ step: Step) {
        for (key, removed) in zip(due[dueHead..<(dueHead + step.trimmedKeys)], step.removedRuns) {
            seen[key]?.trimmed(removingRuns: removed)
        }
        dueHead += step.trimmedKeys
        if dueHead > 1024, dueHead * 2 > due.count {
            due.removeFirst(dueHead)
            dueHead = 0
        }
        horizon = step.horizon
    }

    // MARK: Internals

    /// The oldest row to keep: the start of the newest runs holding `keep`
    /// rows, or, when fewer rows were seen since opening, the row found by
    /// walking the chain on from the oldest seen. `nil` when the key has no
    /// more than `keep` rows.
    private func cut(_ key: Key, _ seen: SeenRows, _ statements: CompactionStatements, removedRuns: inout Int) throws
        -> Int64?
    {
        guard let oldestSeen = seen.runs.first?.start else { return nil }
        var rows = 0
        var index = seen.runs.count
        while rows < keep, index > 0 {
            index -= 1
            rows += seen.runs[index].rows
        }
        if rows >= keep {
            removedRuns = index
            return seen.runs[index].start
        }
        var row = oldestSeen
        for _ in rows..<keep {
            guard let older = try previous(of: row, key, statements), older < row else { return nil }
            row = older
        }
        return row
    }

    /// How many revisions per row to remove a range delete may scan: past
    /// it, the key was written among so many others that walking its chain
    /// (two statements per row) costs less. Measured with one key per
    /// connection (BENCHMARKS, "Why the write path is built this way"): at
    /// 16 revisions per row the range costs less, at 32 the same, at 64 more.
    static let rangeScanLimit: Int64 = 32

    /// Ends the key's chain at `cut` and deletes the rows behind it; returns
    /// the newest revision deleted, if any. `oldestSeen` is the oldest row
    /// of the key this writer saw, `seenRows` how many of its rows lie from
    /// there to the cut, `olderRows` whether rows older than it may remain.
    private func removeRows(
        before cut: Int64, of key: Key, oldestSeen: Int64?, seenRows: Int, olderRows: Bool,
        _ statements: CompactionStatements
    ) throws -> Int64? {
        guard let newest = try previous(of: cut, key, statements), newest < cut else { return nil }
        let end = statements.endChain
        try end.bind(1, cut)
        try end.bind(2, key.rawValue)
        try end.execute()
        guard let oldestSeen, oldestSeen < cut, cut - oldestSeen <= Int64(seenRows) * Self.rangeScanLimit else {
            try removeChain(from: newest, of: key, statements)
            return newest
        }
        // Rows from before the writer's first sight of the key (the first
        // trim after the store opened) are behind `oldestSeen`: read its
        // `previous` before the range goes.
        let older = olderRows ? try previous(of: oldestSeen, key, statements) : nil
        let range = statements.removeRange
        try range.bind(1, oldestSeen)
        try range.bind(2, cut)
        try range.bind(3, key.rawValue)
        try range.execute()
        if let older, older < oldestSeen { try removeChain(from: older, of: key, statements) }
        return newest
    }

    /// Deletes the row at `newest` and every row behind it in the key's chain.
    private func removeChain(from newest: Int64, of key: Key, _ statements: CompactionStatements) throws {
        var doomed: Int64? = newest
        while let revision = doomed {
            // Read before the delete; a missing row (a damaged chain) ends the walk.
            guard let older = try previousRow(of: revision, key, statements) else { break }
            // A chain goes back in time; one that does not is damaged: stop rather than loop.
            if let older, older >= revision { break }
            let remove = statements.removeRow
            try remove.bind(1, revision)
            try remove.bind(2, key.rawValue)
            try remove.execute()
            doomed = older
        }
    }

    /// The revision of the row before `revision` in the key's chain.
    private func previous(of revision: Int64, _ key: Key, _ statements: CompactionStatements) throws -> Int64? {
        try previousRow(of: revision, key, statements) ?? nil
    }

    /// The row's `previous`: `nil` when there is no such row, `.some(nil)`
    /// when it is the oldest of its chain.
    private func previousRow(of revision: Int64, _ key: Key, _ statements: CompactionStatements) throws -> Int64?? {
        let previousOf = statements.previousOf
        try previousOf.bind(1, revision)
        try previousOf.bind(2, key.rawValue)
        return try previousOf.optionalInt64()
    }
}

extension HistoryCompaction.SeenRows {
    /// Notes one new row; returns whether the key just became due.
    mutating func append(_ revision: Int64, threshold: Int) -> Bool {
        if let last = runs.indices.last, runs[last].rows < threshold {
            runs[last].rows += 1
        } else {
            runs.append((start: revision, rows: 1))
        }
        sinceTrim += 1
        return sinceTrim == threshold
    }

    mutating func trimmed(removingRuns removed: Int) {
        runs.removeFirst(removed)
        sinceTrim = 0
        // The cut was the first run kept: the chain now ends at it.
        if removed > 0 { nothingOlder = true }
    }
}
