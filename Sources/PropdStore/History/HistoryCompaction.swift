import GRDB
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
/// The counters live in memory: after a restart a key is trimmed again once
/// it has been written `threshold` more times.
struct HistoryCompaction {
    let keep: Int
    let threshold: Int
    private(set) var horizon: Revision
    private var writesSinceTrim: [Key: Int] = [:]
    private var due: [Key] = []
    private var dueHead = 0

    init(keep: Int, horizon: Revision) {
        self.keep = keep
        self.threshold = max(1, keep / 4)
        self.horizon = horizon
    }

    var pendingKeys: Int { due.count - dueHead }

    /// Counts the committed changes.
    mutating func note(_ changeSets: [ChangeSet]) {
        for changeSet in changeSets {
            for change in changeSet.changes {
                let count = writesSinceTrim[change.key, default: 0] + 1
                writesSinceTrim[change.key] = count
                if count == threshold { due.append(change.key) }
            }
        }
    }

    /// The result of trimming inside a transaction that has not committed yet.
    struct Step {
        var trimmedKeys = 0
        var horizon: Revision
    }

    /// Trims up to `limit` due keys in the open transaction.
    func trim(_ db: Database, limit: Int) throws -> Step {
        var step = Step(horizon: horizon)
        let end = min(due.count, dueHead + limit)
        guard dueHead < end else { return step }
        let oldestDropped = try db.cachedStatement(
            sql: "SELECT revision FROM history WHERE key = ?1 ORDER BY revision DESC LIMIT 1 OFFSET ?2")
        let drop = try db.cachedStatement(sql: "DELETE FROM history WHERE key = ?1 AND revision <= ?2")
        for key in due[dueHead..<end] {
            if let newestDropped = try Int64.fetchOne(oldestDropped, arguments: [key.rawValue, keep]) {
                try drop.execute(arguments: [key.rawValue, newestDropped])
                step.horizon = max(step.horizon, Revision(newestDropped))
            }
            step.trimmedKeys += 1
        }
        if step.horizon > horizon {
            try db.cachedStatement(sql: "UPDATE meta SET value = ?1 WHERE name = 'history_horizon'")
                .execute(arguments: [step.horizon.rawValue])
        }
        return step
    }

    /// Records a step whose transaction committed.
    mutating func committed(_ step: Step) {
        for key in due[dueHead..<(dueHead + step.trimmedKeys)] {
            writesSinceTrim[key] = nil
        }
        dueHead += step.trimmedKeys
        if dueHead > 1024, dueHead * 2 > due.count {
            due.removeFirst(dueHead)
            dueHead = 0
        }
        horizon = step.horizon
    }
}
