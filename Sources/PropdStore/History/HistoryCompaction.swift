import PropdCore

/// Trims history to at least the last `keep` rows of each key, in passes
/// over the rows this writer has written, oldest first, inside the writer's
/// own transaction, so it never stalls writers.
///
/// The writer remembers every row it committed since the store opened, in
/// revision order (the *window*), and how many of them each key has. A row
/// may go once its key has `keep` newer rows in the window. Every
/// ``passRows`` rows, a pass walks the window from its oldest row and
/// removes the rows that may go with one range delete over their revisions,
/// stopping at the first row that must stay: under a steady load that is the
/// oldest row among some key's newest `keep`, so each key keeps `keep` plus
/// its rows written since the last pass. Rows of many
/// keys lie interleaved in revision order, so a range of them fills whole
/// pages, which go at once; trimming key by key would rewrite each page once
/// per key with a row on it (BENCHMARKS.md, "What the history trim
/// costs"). A pass walks at most four passes' worth of rows, so rows held
/// back by a floor (``PropertyStore/retainHistory(after:)``) go over a few.
///
/// A key no longer written keeps its last `keep` rows for good, and would
/// stop every pass at the oldest of them. Once the window is longer than
/// ``windowLimit`` (twice `keep` rows for each key in it, at least 16
/// passes' worth, at most ``windowCapacity``, which bounds the writer's
/// memory), a row that must stay is *left behind*: it stays in history,
/// the window forgets it, and the pass goes on around it. Rows above a
/// floor (``PropertyStore/retainHistory(after:)``) are never removed, but
/// past ``windowCapacity`` they are left behind too: a floor held for long
/// does not hold the writer's memory.
///
/// Rows older than a key's window rows (written before the store opened,
/// or left behind) are found along the key's chain (see
/// `schema/003_history_chain.sql`): when a pass first removes one of the
/// key's window rows, every row behind it in the chain is older, so it goes
/// too. Each key's oldest remaining row ends its chain (`previous` = NULL).
///
/// The horizon is the newest revision any removed row had: every change
/// after it is still in history, so ``PropertyStore/changes(after:)``
/// answers completely after it and refuses before it, never with a gap.
struct HistoryCompaction {
    private(set) var keep: Int
    private(set) var horizon: Revision
    private var window = Window()
    private var plan = PassPlan()
    private var sincePass = 0

    /// The most rows the window holds before it leaves rows behind, also
    /// those above a floor.
    static let windowCapacity = 1 << 20

    init(keep: Int, horizon: Revision) {
        self.keep = max(1, keep)
        self.horizon = horizon
    }

    /// The rows a pass waits for: enough that a pass ends the chains of
    /// many keys at once (one statement per key it trimmed), few enough that
    /// a key keeps little more than `keep`.
    var passRows: Int { min(1024, 8 * keep) }

    /// Past this many rows in the window, a row that must stay is left
    /// behind rather than stopping the pass: room for every key in the
    /// window to keep twice `keep` rows, within ``windowCapacity``.
    var windowLimit: Int { min(Self.windowCapacity, max(16 * passRows, 2 * keep * window.keyCount)) }

    /// Whether the next batch runs a pass.
    var passDue: Bool { sincePass >= passRows }

    /// Keeps at least `keep` rows per key from the next pass on (a reload).
    mutating func setKeep(_ keep: Int) {
        self.keep = max(1, keep)
    }

    /// Remembers the committed changes: each is one history row of its key.
    mutating func note(_ changeSets: [ChangeSet]) {
        for changeSet in changeSets {
            for change in changeSet.changes {
                window.append(changeSet.revision.rawValue, change.key)
                sincePass += 1
            }
        }
    }

    /// What a pass did inside a transaction that has not committed yet.
    struct Step {
        /// The window's first row after the pass.
        var head: Int
        var passed: [PassedRows]
        var horizon: Revision
    }

    /// Removes what may go in the open transaction, no row above `floor`.
    mutating func pass(_ statements: CompactionStatements, floor: Revision?) throws -> Step {
        plan.walk(
            window, keep: keep, floor: floor?.rawValue, limit: 4 * passRows, windowLimit: windowLimit,
            capacity: Self.windowCapacity)
        defer { plan.clear() }
        var step = Step(head: plan.head, passed: plan.passed, horizon: horizon)
        guard let newest = plan.newestRemoved else { return step }
        // Rows behind a key's oldest window row: read where its chain goes
        // before that row does.
        for slot in plan.touched.lazy.map(Int.init) where plan.removed[slot] > 0 && window.mayHaveOlderRows(slot: slot) {
            let key = window.key(ofSlot: slot)
            let first = window.revision(at: plan.firstRemoved[slot])
            if let older = try previous(of: first, key, statements), older < first {
                try removeChain(from: older, of: key, statements)
            }
            let drop = statements.dropStaleDeletedHead
            try drop.bind(1, key.rawValue)
            try drop.execute()
        }
        for range in plan.ranges {
            let ids = HistoryRowID.ids(of: range)
            let remove = statements.removeRange
            try remove.bind(1, ids.lowerBound)
            try remove.bind(2, ids.upperBound)
            try remove.execute()
        }
        for (revision, slot) in plan.single {
            let remove = statements.removeRow
            try remove.bind(1, revision)
            try remove.bind(2, window.key(ofSlot: slot).rawValue)
            try remove.execute()
        }
        for slot in plan.touched.lazy.map(Int.init) where plan.removed[slot] > 0 {
            // The key keeps `keep` rows, so its row after the last removed is in the window.
            guard let next = window.next(after: plan.lastRemoved[slot]) else { continue }
            let end = statements.endChain
            try end.bind(1, window.revision(at: next))
            try end.bind(2, window.key(ofSlot: slot).rawValue)
            try end.execute()
        }
        if Revision(newest) > horizon {
            step.horizon = Revision(newest)
            try statements.setHorizon.bind(1, newest)
            try statements.setHorizon.execute()
        }
        return step
    }

    /// Records a pass whose transaction committed.
    mutating func committed(_ step: Step) {
        sincePass = 0
        window.advance(to: step.head, step.passed)
        horizon = step.horizon
    }

    // MARK: Along a chain

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
