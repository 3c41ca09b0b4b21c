import Foundation
import GRDB
import PropdCore

/// Decoding of stored rows. Anything that does not decode (a key that is not
/// a key, a value that is not JSON) means the file was damaged outside propd.
enum PropertyRow {
    /// Columns: key, value, revision, created, error, binding expression, expires.
    static let selectColumns = "p.key, p.value, p.revision, p.created, p.error, b.expression, p.expires"
    static let fromClause = "properties p LEFT JOIN bindings b ON b.key = p.key"

    static func property(_ row: Row, path: String) throws -> Property {
        try property(row, key: key(row, 0, path: path), path: path)
    }

    /// The property of a row whose key (column 0) was already decoded.
    static func property(_ row: Row, key: Key, path: String) throws -> Property {
        Property(
            key: key,
            value: try json(row, 1, path: path),
            revision: Revision(row[2] as Int64),
            created: Revision(row[3] as Int64),
            binding: row[5] as String?,
            error: row[4] as String?,
            expires: row[6] as Int64?
        )
    }

    static func key(_ row: Row, _ index: Int, path: String) throws -> Key {
        let text: String = row[index]
        do {
            return try Key(text)
        } catch {
            throw StoreError.corrupt(path: path, message: "stored key \(String(reflecting: text)) is invalid: \(error)")
        }
    }

    /// The JSON value in a TEXT column, parsed straight from SQLite's buffer.
    static func json(_ row: Row, _ index: Int, path: String) throws -> JSONValue? {
        try row.withUnsafeData(atIndex: index) { data -> JSONValue? in
            guard let data else { return nil }
            return try data.withUnsafeBytes { raw -> JSONValue in
                do {
                    return try JSONValue(parsingUTF8: raw)
                } catch {
                    throw StoreError.corrupt(path: path, message: "stored value is not JSON: \(error)")
                }
            }
        }
    }

    static func keys(fromJSON text: String, path: String) throws -> [Key] {
        guard case .array(let items) = try? JSONValue(parsing: text) else {
            throw StoreError.corrupt(path: path, message: "binding sources are not a JSON array")
        }
        return try items.map { item -> Key in
            guard case .string(let s) = item, let key = try? Key(s) else {
                throw StoreError.corrupt(path: path, message: "binding source \(item) is not a key")
            }
            return key
        }
    }

    static func json(keys: [Key]) -> String {
        JSONValue.array(keys.map { .string($0.rawValue) }).jsonString
    }
}
