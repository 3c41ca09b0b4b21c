import PropdCore

/// Decoding of stored rows. Anything that does not decode (a key that is not
/// a key, a value that is not JSON, a column of the wrong type) means the
/// file was damaged outside propd: it is reported, never trusted.
enum PropertyRow {
    /// Columns: key, value, revision, created, error, binding expression, expires.
    static let selectColumns = "p.key, p.value, p.revision, p.created, p.error, b.expression, p.expires"
    static let fromClause = "properties p LEFT JOIN bindings b ON b.key = p.key"

    static func property(_ row: SQLiteRow, path: String) throws -> Property {
        try property(row, key: key(row, 0, path: path), path: path)
    }

    /// The property of a row whose key (column 0) was already decoded.
    static func property(_ row: SQLiteRow, key: Key, path: String) throws -> Property {
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

    /// A NOT NULL integer column.
    static func integer(_ row: SQLiteRow, _ index: Int32, _ column: String, path: String) throws -> Int64 {
        guard row.isInteger(index) else { throw StoreError.corrupt(path: path, message: "\(column) is not an integer") }
        return row.int64(index)
    }

    /// An integer column that may be NULL.
    static func optionalInteger(_ row: SQLiteRow, _ index: Int32, _ column: String, path: String) throws -> Int64? {
        if row.isNull(index) { return nil }
        return try integer(row, index, column, path: path)
    }

    /// A TEXT column that may be NULL.
    static func optionalText(_ row: SQLiteRow, _ index: Int32, _ column: String, path: String) throws -> String? {
        if row.isNull(index) { return nil }
        guard row.isText(index), let text = row.text(index) else {
            throw StoreError.corrupt(path: path, message: "\(column) is not text")
        }
        return text
    }

    /// A NOT NULL TEXT column.
    static func text(_ row: SQLiteRow, _ index: Int32, _ column: String, path: String) throws -> String {
        guard let text = try optionalText(row, index, column, path: path) else {
            throw StoreError.corrupt(path: path, message: "\(column) is NULL")
        }
        return text
    }

    static func key(_ row: SQLiteRow, _ index: Int32, path: String) throws -> Key {
        let text = try text(row, index, "key", path: path)
        do {
            return try Key(text)
        } catch {
            throw StoreError.corrupt(path: path, message: "stored key \(String(reflecting: text)) is invalid: \(error)")
        }
    }

    /// The JSON value in a TEXT column, parsed straight from SQLite's buffer.
    static func json(_ row: SQLiteRow, _ index: Int32, path: String) throws -> JSONValue? {
        try row.withUTF8(index) { bytes -> JSONValue in
            do {
                return try JSONValue(parsingUTF8: bytes)
            } catch {
                throw StoreError.corrupt(path: path, message: "stored value is not JSON: \(error)")
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
