import GRDB
public import PropdCore

extension WriteTransaction {
    /// Every key that expires, with its deadline, as this request sees them
    /// (to rebuild the engine's schedule after a rollback).
    public func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        try run { db in try ExpiringKeys.all(db, path: path) }
    }

    /// Makes `key` permanent without changing its value or revision: it
    /// became derived, and derived keys do not expire.
    public mutating func makePermanent(_ key: Key) throws(StoreError) {
        try run { db in
            try db.cachedStatement(sql: "UPDATE properties SET expires = NULL WHERE key = ? AND expires IS NOT NULL")
                .execute(arguments: [key.rawValue])
        }
    }

    /// Removes the evaluation error of a derived key that has no value (a
    /// successful evaluation dropped its value). Nothing goes to history:
    /// there is no value to record.
    public mutating func clearError(_ key: Key) throws(StoreError) {
        try run { db in
            try db.cachedStatement(sql: "UPDATE properties SET error = NULL WHERE key = ?")
                .execute(arguments: [key.rawValue])
        }
    }
}

/// The expiring keys, read through the partial index `properties_expiring`.
enum ExpiringKeys {
    static func all(_ db: Database, path: String) throws -> [(key: Key, expires: Int64)] {
        var result: [(key: Key, expires: Int64)] = []
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT key, expires FROM properties WHERE expires IS NOT NULL"))
        while let row = try rows.next() {
            result.append((try PropertyRow.key(row, 0, path: path), row[1]))
        }
        return result
    }
}
