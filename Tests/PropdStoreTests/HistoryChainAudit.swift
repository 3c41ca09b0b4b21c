import Foundation
import PropdCore
import Testing

/// Checks, straight in the database file, the invariants of the history
/// chain (`schema/003_history_chain.sql`), and returns what is wrong (empty
/// when all hold):
/// - every key's chain, walked from the head the rule names, reaches every
///   one of its rows, newest first, and ends with `previous` NULL (no row is
///   unreachable, so none escapes compaction; none points to a removed row);
/// - a key whose newest row is a delete has that row in deleted_heads;
/// - a key has at most one row per revision (`schema/006_history_row_ids.sql`).
func auditHistoryChains(_ path: String) throws -> [String] {
    let database = try InspectedDatabase(path)
    // One read transaction: every query below sees the same snapshot.
    try database.execute("BEGIN")
    defer { try? database.execute("COMMIT") }
    var problems: [String] = []
    let rows = try database.rows(
        "SELECT key, id >> 18, kind, previous FROM history ORDER BY key, id DESC", columns: 4)
    var byKey: [String: [(revision: Int64, kind: String, previous: Int64?)]] = [:]
    for row in rows {
        guard let key = row[0], let revision = row[1].flatMap({ Int64($0) }), let kind = row[2] else {
            problems.append("a history row with a NULL key, revision or kind: \(row)")
            continue
        }
        byKey[key, default: []].append((revision, kind, row[3].flatMap { Int64($0) }))
    }
    for (key, newestFirst) in byKey {
        let head = try database.int64("""
            SELECT coalesce(
                (SELECT revision FROM properties WHERE key = ?1 AND (value IS NOT NULL OR error IS NOT NULL)),
                (SELECT revision FROM deleted_heads WHERE key = ?1))
            """, key)
        if head != newestFirst.first?.revision {
            problems.append("\(key): head \(String(describing: head)), newest row \(newestFirst[0].revision)")
        }
        for (newer, older) in zip(newestFirst, newestFirst.dropFirst()) where newer.revision == older.revision {
            problems.append("\(key)@\(newer.revision): two rows")
        }
        for (index, row) in newestFirst.enumerated() {
            let expected = index + 1 < newestFirst.count ? newestFirst[index + 1].revision : nil
            if row.previous != expected {
                problems.append("\(key)@\(row.revision): previous \(String(describing: row.previous)), expected \(String(describing: expected))")
            }
        }
        if newestFirst[0].kind == "delete" {
            let recorded = try database.int64("SELECT revision FROM deleted_heads WHERE key = ?", key)
            if recorded != newestFirst[0].revision {
                problems.append("\(key): deleted, deleted_heads has \(String(describing: recorded))")
            }
        }
    }
    return problems
}

/// Expects ``auditHistoryChains(_:)`` to find nothing wrong in `dir`'s database.
func expectIntactHistoryChains(_ dir: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let problems = try auditHistoryChains(dir.databasePath)
    #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
}
