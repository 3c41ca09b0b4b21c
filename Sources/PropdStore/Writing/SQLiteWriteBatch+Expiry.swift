import GRDB
import PropdCore

extension SQLiteWriteBatch {
    func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        try run { db in try ExpiringKeys.all(db, path: path) }
    }

    func makePermanent(_ key: Key) throws(StoreError) {
        try run { db in
            try db.cachedStatement(sql: "UPDATE properties SET expires = NULL WHERE key = ? AND expires IS NOT NULL")
                .execute(arguments: [key.rawValue])
        }
    }

    func clearError(_ key: Key) throws(StoreError) {
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
