import Foundation
public import PropdCore

extension PropertyStore {
    /// The named properties in the order asked (`nil` for a missing key), and
    /// the revision they were all read at.
    public func get(_ keys: [Key]) throws(StoreError) -> (properties: [Property?], revision: Revision) {
        try readConnections.read { connection in
            let revision = try Self.committedRevision(connection)
            let select = try connection.statement(
                "SELECT \(PropertyRow.selectColumns) FROM \(PropertyRow.fromClause) WHERE p.key = ?1")
            let properties = try keys.map { key -> Property? in
                try select.bind(1, key.rawValue)
                return try select.withFirstRow { row in try PropertyRow.property(row, key: key, path: path) }
            }
            return (properties, revision)
        }
    }

    /// The properties matching `pattern` (all when `nil`), sorted by key
    /// (byte order), at most `limit`, and the revision they were read at.
    /// Scans only the range of keys under the pattern's literal prefix.
    public func list(pattern: KeyPattern? = nil, limit: Int? = nil) throws(StoreError)
        -> (properties: [Property], revision: Revision)
    {
        try readConnections.read { connection in
            let revision = try Self.committedRevision(connection)
            let select = "SELECT \(PropertyRow.selectColumns) FROM \(PropertyRow.fromClause)"
            let statement = try connection.statement(select, keysIn: "p.key", matching: pattern)
            var properties: [Property] = []
            let maximum = limit ?? Int.max
            guard maximum > 0 else { return (properties, revision) }
            try statement.forEachRow { row in
                // Match on the key alone: values of keys that do not match are never decoded.
                let key = try PropertyRow.key(row, 0, path: path)
                if let pattern, !pattern.matches(key) { return true }
                properties.append(try PropertyRow.property(row, key: key, path: path))
                return properties.count < maximum
            }
            return (properties, revision)
        }
    }

    /// Past changes of `key`, newest first: at most `limit`, only revisions
    /// below `before` when given. Kinds are `set`, `delete` and `error`.
    ///
    /// Walks the key's history chain from its newest row (see
    /// `schema/003_history_chain.sql`) by primary-key lookups, stopping once
    /// `limit` rows below `before` are found.
    public func history(of key: Key, limit: Int? = nil, before: Revision? = nil) throws(StoreError) -> [Event] {
        // As SQL's LIMIT: 0 is none, a negative limit is no limit.
        if limit == 0 { return [] }
        let limit = limit.flatMap { $0 < 0 ? nil : $0 } ?? Int.max
        return try readConnections.read { connection in
            let walk = try connection.statement(HistoryChain.walk)
            try walk.bind(1, key.rawValue)
            try walk.bind(2, before?.rawValue ?? Int64.max)
            try walk.bind(3, Int64(limit))
            var events: [Event] = []
            try walk.forEachRow { row in
                events.append(try Self.event(key: key.rawValue, row: row, path: path))
                return true
            }
            return events
        }
    }

    /// Every change set after `since`, in revision order, complete, and the
    /// store revision they were read at (live changes follow it). Fails with
    /// ``StoreError/compacted(since:oldest:)`` when history no longer reaches
    /// back to `since + 1`: it never returns a sequence with a gap.
    /// Revisions that changed no property have no change set. Within a
    /// change set, changes are in key order.
    ///
    /// With `limit`, at most that many change sets (the oldest); page on with
    /// `changes(after: last.revision)` until the result is empty.
    public func changes(after since: Revision, limit: Int? = nil) throws(StoreError)
        -> (changeSets: [ChangeSet], revision: Revision)
    {
        try readConnections.read { connection in
            let revision = try Self.committedRevision(connection)
            let horizon = Revision(try Self.historyHorizon(connection))
            if since < horizon { throw StoreError.compacted(since: since, oldest: horizon.next) }
            // Nothing is after the last revision (and no id is after the last one that has ids).
            guard since < revision else { return ([], revision) }
            // In id order, which is revision order; each revision's rows are
            // put in key order below.
            let select = try connection.statement("""
                SELECT \(HistoryRowID.revisionColumn()), kind, value, error, key FROM history
                WHERE id >= ?1 ORDER BY id
                """)
            try select.bind(1, HistoryRowID.id(revision: since.rawValue + 1, slot: 0))
            var changeSets: [ChangeSet] = []
            try select.forEachRow { row in
                let change = try Self.change(row: row, path: path)
                let at = Revision(try PropertyRow.integer(row, 0, "revision", path: path))
                if changeSets.last?.revision == at {
                    changeSets[changeSets.count - 1].changes.append(change)
                } else if let limit, changeSets.count >= limit {
                    return false
                } else {
                    changeSets.append(ChangeSet(revision: at, changes: [change]))
                }
                return true
            }
            for index in changeSets.indices where changeSets[index].changes.count > 1 {
                changeSets[index].changes.sort { $0.key.rawValue.utf8.lexicographicallyPrecedes($1.key.rawValue.utf8) }
            }
            return (changeSets, revision)
        }
    }

    /// Every declared binding, sorted by key.
    public func bindings() throws(StoreError) -> [BindingRecord] {
        try readConnections.read { connection in try StoredTables.bindings(connection, path: path) }
    }

    /// The stored operator state of every binding, to restore the engine at start.
    public func bindingStates() throws(StoreError) -> [Key: JSONValue] {
        try readConnections.read { connection in try StoredTables.bindingStates(connection, path: path) }
    }

    /// Every key that expires, with its deadline (milliseconds since the
    /// epoch), to arm the timers at start.
    public func expiringKeys() throws(StoreError) -> [(key: Key, expires: Int64)] {
        try readConnections.read { connection in try StoredTables.expiringKeys(connection, path: path) }
    }

    /// How many keys exist.
    public func keyCount() throws(StoreError) -> Int {
        try readConnections.read { connection in Int(try connection.statement("SELECT count(*) FROM properties").int64() ?? 0) }
    }

    /// How many bindings are declared.
    public func bindingCount() throws(StoreError) -> Int {
        try readConnections.read { connection in Int(try connection.statement("SELECT count(*) FROM bindings").int64() ?? 0) }
    }

    /// The oldest revision from which history is complete: `changes(after:)`
    /// accepts any `since >= oldestCompleteRevision - 1`.
    public func oldestCompleteRevision() throws(StoreError) -> Revision {
        try readConnections.read { connection in Revision(try Self.historyHorizon(connection)).next }
    }

    /// The bytes the database occupies on disk (main file and WAL).
    public var databaseBytes: Int {
        [path, path + "-wal"].reduce(0) { total, file in
            var info = stat()
            return total + (stat(file, &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    // MARK: Internals

    /// The last committed revision: the newest history row's, or the
    /// counter in `meta` when revisions that changed nothing came after it
    /// (the writer updates the counter only then; see `GroupCommit`).
    static func committedRevision(_ connection: SQLiteConnection) throws -> Revision {
        Revision(try connection.statement(committedRevisionSQL).int64() ?? 0)
    }

    static let committedRevisionSQL = """
        SELECT max(value, coalesce((SELECT max(id) FROM history) >> \(HistoryRowID.slotBits), 0))
        FROM meta WHERE name = 'revision'
        """

    static func historyHorizon(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.statement("SELECT value FROM meta WHERE name = 'history_horizon'").int64() ?? 0
    }

    /// A history row of `revision, kind, value, error, key` as a change.
    static func change(row: SQLiteRow, path: String) throws -> Change {
        let key = try PropertyRow.key(row, 4, path: path)
        switch try PropertyRow.text(row, 1, "kind", path: path) {
        case "set":
            guard let value = try PropertyRow.json(row, 2, path: path) else {
                throw StoreError.corrupt(path: path, message: "a history 'set' of \(key) has no value")
            }
            return .set(key, value)
        case "delete": return .delete(key)
        default:
            return Change(
                key: key, kind: .error(try PropertyRow.optionalText(row, 3, "error", path: path) ?? ""),
                kept: try PropertyRow.json(row, 2, path: path))
        }
    }

    /// A history row of `revision, kind, value, error` of `key` as an event.
    static func event(key: String, row: SQLiteRow, path: String) throws -> Event {
        let kind: Event.Kind
        switch try PropertyRow.text(row, 1, "kind", path: path) {
        case "set": kind = .set
        case "delete": kind = .delete
        default: kind = .error
        }
        return Event(
            key: key, kind: kind, value: try PropertyRow.json(row, 2, path: path),
            revision: Revision(try PropertyRow.integer(row, 0, "revision", path: path)),
            error: try PropertyRow.optionalText(row, 3, "error", path: path))
    }
}
