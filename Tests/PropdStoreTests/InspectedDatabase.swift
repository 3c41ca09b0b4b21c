@testable import PropdStore

/// A database file as the tests read, damage or prepare it: through the
/// store's own SQLite wrapper, because a process must not open one file
/// through two copies of SQLite (see `Sources/CSQLite/include/CSQLite.h`),
/// and the store's copy is the one linked here.
struct InspectedDatabase {
    private let connection: SQLiteConnection

    /// Opens `path`, creating it when it is missing; `":memory:"` is a private in-memory database.
    init(_ path: String) throws {
        connection = try SQLiteConnection(path: path, mode: .create)
    }

    /// Runs `sql`, which may hold several statements, ignoring any rows.
    func execute(_ sql: String) throws {
        try connection.execute(sql)
    }

    /// The first column of every row, as text (NULLs skipped).
    func strings(_ sql: String) throws -> [String] {
        try connection.strings(sql)
    }

    /// The first row's first column as an integer: `nil` when there is no row or it is NULL.
    func int64(_ sql: String, _ arguments: String...) throws -> Int64? {
        let statement = try connection.prepare(sql)
        for (index, argument) in arguments.enumerated() { try statement.bind(Int32(index + 1), argument) }
        return try statement.optionalInt64() ?? nil
    }

    /// Every row, each of its first `columns` columns as text (`nil` for NULL).
    func rows(_ sql: String, columns: Int32) throws -> [[String?]] {
        var rows: [[String?]] = []
        try connection.prepare(sql).forEachRow { row in
            rows.append((0..<columns).map { row.text($0) })
            return true
        }
        return rows
    }
}
