import Foundation
import GRDB
import PropdCore
import Testing

/// Checks, straight in the database file, the invariants of the history
/// chain (`schema/003_history_chain.sql`), and returns what is wrong (empty
/// when all hold):
/// - every key's chain, walked from the head the rule names, reaches every
///   one of its rows, newest first, and ends with `previous` NULL (no row is
///   unreachable, so none escapes compaction; none points to a removed row);
/// - a key whose newest row is a delete has that row in deleted_heads.
func auditHistoryChains(_ path: String) throws -> [String] {
    let queue = try DatabaseQueue(path: path)
    return try queue.read { db in
        var problems: [String] = []
        let rows = try Row.fetchAll(db, sql: "SELECT key, revision, kind, previous FROM history ORDER BY key, revision DESC")
        var byKey: [String: [(revision: Int64, kind: String, previous: Int64?)]] = [:]
        for row in rows { byKey[row[0], default: []].append((row[1], row[2], row[3])) }
        for (key, newestFirst) in byKey {
            let head = try Int64.fetchOne(db, sql: """
                SELECT coalesce(
                    (SELECT revision FROM properties WHERE key = ?1 AND (value IS NOT NULL OR error IS NOT NULL)),
                    (SELECT revision FROM deleted_heads WHERE key = ?1))
                """, arguments: [key])
            if head != newestFirst.first?.revision {
                problems.append("\(key): head \(String(describing: head)), newest row \(newestFirst[0].revision)")
            }
            for (index, row) in newestFirst.enumerated() {
                let expected = index + 1 < newestFirst.count ? newestFirst[index + 1].revision : nil
                if row.previous != expected {
                    problems.append("\(key)@\(row.revision): previous \(String(describing: row.previous)), expected \(String(describing: expected))")
                }
            }
            if newestFirst[0].kind == "delete" {
                let recorded = try Int64.fetchOne(db, sql: "SELECT revision FROM deleted_heads WHERE key = ?", arguments: [key])
                if recorded != newestFirst[0].revision {
                    problems.append("\(key): deleted, deleted_heads has \(String(describing: recorded))")
                }
            }
        }
        return problems
    }
}

/// Expects ``auditHistoryChains(_:)`` to find nothing wrong in `dir`'s database.
func expectIntactHistoryChains(_ dir: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let problems = try auditHistoryChains(dir.databasePath)
    #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
}
