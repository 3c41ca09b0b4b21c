import CSQLite3
import FloorFrames
import NIOCore

/// The Sets of one event-loop tick, in one SQLite WAL transaction (an upsert
/// and a history row each, as `durable_set_server.c`; with `keep`, propd's
/// `properties` table and a history keeping `keep` rows per key, as
/// `-DROWID_CHAIN -DTRIM_KEEP=keep`: the row appended by its id, the key's
/// oldest deleted by its id once it has `keep` newer; with `bulkTrim`, as
/// `-DBULK_TRIM=bulkTrim`: every `bulkTrim` Sets, one range delete of every
/// row older than the oldest any key keeps): the first Set of a
/// tick opens it and schedules the commit after the tick's reads; the
/// commit writes and flushes every reply of the tick, then the tick's
/// events to every subscriber, one write each.
///
/// Used only on the server's one event loop.
final class SetBatch {
    private let database: OpaquePointer
    private let upsert: OpaquePointer
    private let appendHistory: OpaquePointer
    /// With a kept history: the statement deleting a row by its id, and the
    /// ids each key keeps.
    private let trim: OpaquePointer?
    private var kept: KeptRows?
    /// With a kept history trimmed in bulk: every how many Sets.
    private let bulkTrim: Int64?
    private let loop: any EventLoop
    private var revision: Int64 = 0
    private var open = false
    private var commitScheduled = false
    private var touched: [FloorConnection] = []
    private var subscribers: [ObjectIdentifier: FloorConnection] = [:]
    /// The tick's events, as the frames every subscriber gets.
    private var events = ByteBuffer()

    /// Creates the floor's two tables in a new database at `path`; with
    /// `keep`, propd's `properties` table and a rowid history chain.
    init(path: String, synchronous: String, keep: Int?, bulkTrim: Int?, loop: any EventLoop) throws(FloorError) {
        self.loop = loop
        self.bulkTrim = bulkTrim.map(Int64.init)
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else { throw .sqlite("open \(path)") }
        database = handle
        let tables = keep == nil ? [
            "CREATE TABLE p(key TEXT PRIMARY KEY, value BLOB, rev INTEGER)",
            "CREATE TABLE h(rev INTEGER PRIMARY KEY, key TEXT, value BLOB)",
        ] : [
            // propd's, as durable_set_server.c's PROPERTIES_TABLE.
            "CREATE TABLE properties (key TEXT NOT NULL PRIMARY KEY, value TEXT, revision INTEGER NOT NULL, "
                + "created INTEGER NOT NULL, error TEXT, expires INTEGER) WITHOUT ROWID",
            "CREATE INDEX properties_expiring ON properties (key) WHERE expires IS NOT NULL",
            "CREATE TABLE history (id INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, value TEXT, "
                + "error TEXT, previous INTEGER)",
        ]
        for sql in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=\(synchronous)"] + tables {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw .sqlite(sql) }
        }
        if let keep {
            upsert = try Self.prepare(
                handle,
                "INSERT INTO properties (key, value, revision, created, error, expires) VALUES (?1, ?2, ?3, ?3, NULL, NULL) "
                    + "ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision, error = NULL, "
                    + "expires = excluded.expires")
            appendHistory = try Self.prepare(
                handle, "INSERT INTO history (id, key, kind, value, error, previous) VALUES (?1, ?2, 'set', ?3, NULL, ?4)")
            trim = try Self.prepare(handle, "DELETE FROM history WHERE id \(bulkTrim == nil ? "=" : "<") ?1")
            kept = KeptRows(keep: keep)
        } else {
            upsert = try Self.prepare(
                handle, "INSERT INTO p(key,value,rev) VALUES(?1,?2,?3) ON CONFLICT(key) DO UPDATE SET value=excluded.value, rev=excluded.rev")
            appendHistory = try Self.prepare(handle, "INSERT INTO h(rev,key,value) VALUES(?1,?2,?3)")
            trim = nil
            kept = nil
        }
    }

    private static func prepare(_ database: OpaquePointer, _ sql: String) throws(FloorError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw .sqlite(sql)
        }
        return statement
    }

    /// Writes `key = value` at the next revision and queues its reply on
    /// `connection`.
    func set(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, from connection: FloorConnection) {
        if !open {
            sqlite3_exec(database, "BEGIN", nil, nil, nil)
            open = true
        }
        scheduleCommit()
        revision += 1
        // The frame's bytes stay put until the statements are reset: bound
        // without a copy. The statements in durable_set_server.c's order.
        if kept != nil {
            appendKeptHistory(key: key, value: value)
            upsert(key: key, value: value)
        } else {
            upsert(key: key, value: value)
            sqlite3_bind_int64(appendHistory, 1, revision)
            sqlite3_bind_text(appendHistory, 2, key.baseAddress, Int32(key.count), nil)
            sqlite3_bind_text(appendHistory, 3, value.baseAddress, Int32(value.count), nil)
            sqlite3_step(appendHistory)
            sqlite3_reset(appendHistory)
        }
        if !connection.hasQueuedReplies { touched.append(connection) }
        connection.queueRevisionReply(revision)
        if !subscribers.isEmpty {
            events.writeStaticString(#"{"parameters":{"event":{"kind":"set","key":""#)
            events.writeBytes(key)
            events.writeStaticString(#"","value":"#)
            events.writeBytes(value)
            events.writeStaticString(#","revision":"#)
            events.writeDecimal(revision)
            events.writeStaticString("}},\"continues\":true}\0")
        }
    }

    /// The key's current value, at the current revision.
    private func upsert(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        sqlite3_bind_text(upsert, 1, key.baseAddress, Int32(key.count), nil)
        sqlite3_bind_text(upsert, 2, value.baseAddress, Int32(value.count), nil)
        sqlite3_bind_int64(upsert, 3, revision)
        sqlite3_step(upsert)
        sqlite3_reset(upsert)
    }

    /// The Set's row in the rowid chain (the id `revision << 16`, as the C
    /// floor's), then the key's oldest row deleted once it has `keep` newer,
    /// or, trimming in bulk, every `bulkTrim` Sets every row below the
    /// oldest any key keeps.
    private func appendKeptHistory(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let id = revision << 16
        sqlite3_bind_int64(appendHistory, 1, id)
        sqlite3_bind_text(appendHistory, 2, key.baseAddress, Int32(key.count), nil)
        sqlite3_bind_text(appendHistory, 3, value.baseAddress, Int32(value.count), nil)
        sqlite3_bind_int64(appendHistory, 4, (revision - 1) << 16)
        sqlite3_step(appendHistory)
        sqlite3_reset(appendHistory)
        let pushedOut = kept?.append(id, for: key)
        if let bulkTrim {
            if revision % bulkTrim == 0, let kept { runTrim(kept.oldestKept(atMost: id)) }
        } else if let pushedOut {
            runTrim(pushedOut)
        }
    }

    /// Runs the trim statement with `id`: it deletes that row, or in bulk
    /// every row below it.
    private func runTrim(_ id: Int64) {
        guard let trim else { return }
        sqlite3_bind_int64(trim, 1, id)
        sqlite3_step(trim)
        sqlite3_reset(trim)
    }

    /// A reply that needs no commit, written with the tick's others.
    func answer(_ connection: FloorConnection) {
        scheduleCommit()
        if !connection.hasQueuedReplies { touched.append(connection) }
    }

    /// One commit per tick, in a task after the tick's reads.
    private func scheduleCommit() {
        guard !commitScheduled else { return }
        commitScheduled = true
        let bound = NIOLoopBound(self, eventLoop: loop)
        loop.execute { bound.value.commit() }
    }

    /// `connection` gets every later Set as an event.
    func subscribe(_ connection: FloorConnection) -> Int64 {
        subscribers[ObjectIdentifier(connection)] = connection
        return revision
    }

    func unsubscribe(_ connection: FloorConnection) {
        subscribers[ObjectIdentifier(connection)] = nil
    }

    private func commit() {
        commitScheduled = false
        if open {
            sqlite3_exec(database, "COMMIT", nil, nil, nil)
            open = false
        }
        let connections = touched
        touched.removeAll(keepingCapacity: true)
        for connection in connections { connection.flushReplies() }
        guard events.readableBytes > 0 else { return }
        for subscriber in subscribers.values { subscriber.send(events) }
        events.clear()
    }
}

extension ByteBuffer {
    /// `value` (not negative) in decimal ASCII.
    mutating func writeDecimal(_ value: Int64) {
        withDecimalDigits(of: value) { digits in _ = writeBytes(digits) }
    }
}

/// What keeps the floor server from starting.
enum FloorError: Error, CustomStringConvertible {
    case sqlite(String)
    case usage

    var description: String {
        switch self {
        case .sqlite(let what): "SQLite failed: \(what)"
        case .usage: "usage: nio-floor-server SOCKET DATABASE NORMAL|FULL [KEEP [BULK]]"
        }
    }
}
