import GRDBSQLite
import PropdCore

/// Decoding of the current row of a statement stepped through the C API,
/// with the columns of ``PropertyRow/selectColumns``.
extension PropertyRow {
    static func property(_ statement: OpaquePointer, path: String) throws -> Property {
        try property(statement, key: key(statement, 0, path: path), path: path)
    }

    static func property(_ statement: OpaquePointer, key: Key, path: String) throws -> Property {
        do {
            return Property(
                key: key,
                value: try json(statement, 1, path: path),
                revision: Revision(try integer(statement, 2, "revision", path: path)),
                created: Revision(try integer(statement, 3, "created", path: path)),
                binding: text(statement, 5),
                error: text(statement, 4),
                expires: try optionalInteger(statement, 6, "expires", path: path)
            )
        } catch StoreError.corrupt(let path, let message) {
            throw StoreError.corrupt(path: path, message: "the row of \(key): \(message)")
        }
    }

    /// A NOT NULL integer column (a damaged file may hold anything there).
    static func integer(_ statement: OpaquePointer, _ index: Int32, _ column: String, path: String) throws -> Int64 {
        guard sqlite3_column_type(statement, index) == SQLITE_INTEGER else {
            throw StoreError.corrupt(path: path, message: "\(column) is not an integer")
        }
        return sqlite3_column_int64(statement, index)
    }

    /// An integer column that may be NULL.
    static func optionalInteger(_ statement: OpaquePointer, _ index: Int32, _ column: String, path: String) throws -> Int64? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL else { return nil }
        return try integer(statement, index, column, path: path)
    }

    static func key(_ statement: OpaquePointer, _ index: Int32, path: String) throws -> Key {
        let text = text(statement, index) ?? ""
        do {
            return try Key(text)
        } catch {
            throw StoreError.corrupt(path: path, message: "stored key \(String(reflecting: text)) is invalid: \(error)")
        }
    }

    static func text(_ statement: OpaquePointer, _ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        return String(cString: bytes)
    }

    /// The JSON value in a TEXT column, parsed straight from SQLite's buffer.
    static func json(_ statement: OpaquePointer, _ index: Int32, path: String) throws -> JSONValue? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        do {
            return try JSONValue(parsingUTF8: UnsafeRawBufferPointer(start: bytes, count: count))
        } catch {
            throw StoreError.corrupt(path: path, message: "stored value is not JSON: \(error)")
        }
    }
}
