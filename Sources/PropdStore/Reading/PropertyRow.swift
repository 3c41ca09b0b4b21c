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
        do {
            return Property(
                key: key,
                value: try json(row, 1, path: path),
                revision: Revision(try integer(row, 2, "revision", path: path)),
                created: Revision(try integer(row, 3, "created", path: path)),
                binding: try optionalText(row, 5, "binding", path: path),
                error: try optionalText(row, 4, "error", path: path),
                expires: try optionalInteger(row, 6, "expires", path: path)
            )
        } catch StoreError.corrupt(let path, let message) {
            throw StoreError.corrupt(path: path, message: "the row of \(key): \(message)")
        }
    }

    // GRDB's `row[i] as T` stops the process on NULL or a value of another
    // type; a damaged file must give an error instead.

    /// A NOT NULL integer column.
    static func integer(_ row: Row, _ index: Int, _ column: String, path: String) throws -> Int64 {
        guard case .int64(let value) = (row[index] as DatabaseValue).storage else {
            throw StoreError.corrupt(path: path, message: "\(column) is not an integer")
        }
        return value
    }

    /// An integer column that may be NULL.
    static func optionalInteger(_ row: Row, _ index: Int, _ column: String, path: String) throws -> Int64? {
        switch (row[index] as DatabaseValue).storage {
        case .null: return nil
        case .int64(let value): return value
        default: throw StoreError.corrupt(path: path, message: "\(column) is not an integer")
        }
    }

    /// A TEXT column that may be NULL.
    static func optionalText(_ row: Row, _ index: Int, _ column: String, path: String) throws -> String? {
        switch (row[index] as DatabaseValue).storage {
        case .null: return nil
        case .string(let text): return text
        default: throw StoreError.corrupt(path: path, message: "\(column) is not text")
        }
    }

    /// A NOT NULL TEXT column.
    static func text(_ row: Row, _ index: Int, _ column: String, path: String) throws -> String {
        guard let text = try optionalText(row, index, column, path: path) else {
            throw StoreError.corrupt(path: path, message: "\(column) is NULL")
        }
        return text
    }

    static func key(_ row: Row, _ index: Int, path: String) throws -> Key {
        let text = try text(row, index, "key", path: path)
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
