import CEpoll
import CSQLite3
import FloorFrames

#if canImport(Glibc)
import Glibc
#endif

/// The C floor's loop, statement for statement: each epoll round reads
/// every ready connection, splits what it read at NULs, runs each Set in
/// the round's transaction (opened by its first Set), commits, writes each
/// answered connection's replies with one `write`, then the round's events
/// to every subscriber. The key and value are cut out of the frame, as the
/// C floor cuts them with `strstr`: no JSON parser.
final class EpollFloor {
    private static let bufferSize = 1 << 16
    private static let maximumConnections = 4096

    private let database: OpaquePointer
    private let upsert: OpaquePointer
    private let appendHistory: OpaquePointer
    private let listener: Int32
    private let epoll: Int32
    /// By file descriptor, as the C floor's `conns`.
    private var connections: [FloorConnection?]
    private var touched: [Int32] = []
    private var inTransaction = false
    private var revision: Int64 = 0
    /// The round's events, as the frames every subscriber gets.
    private var events: [UInt8] = []

    init(socket path: String, database databasePath: String, synchronous: String) throws(FloorError) {
        var handle: OpaquePointer?
        guard sqlite3_open(databasePath, &handle) == SQLITE_OK, let handle else {
            throw .sqlite("open \(databasePath)")
        }
        database = handle
        for sql in [
            "PRAGMA journal_mode=WAL", "PRAGMA synchronous=\(synchronous)",
            "CREATE TABLE p(key TEXT PRIMARY KEY, value BLOB, rev INTEGER)",
            "CREATE TABLE h(rev INTEGER PRIMARY KEY, key TEXT, value BLOB)",
        ] {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw .sqlite(sql) }
        }
        upsert = try Self.prepare(
            handle,
            "INSERT INTO p(key,value,rev) VALUES(?1,?2,?3) ON CONFLICT(key) DO UPDATE SET value=excluded.value, rev=excluded.rev")
        appendHistory = try Self.prepare(handle, "INSERT INTO h(rev,key,value) VALUES(?1,?2,?3)")
        connections = Array(repeating: nil, count: Self.maximumConnections)
        events.reserveCapacity(Self.bufferSize)
        listener = try Self.listen(at: path)
        epoll = epoll_create1(0)
        guard epoll >= 0 else { throw .system("epoll_create1") }
        try watch(listener)
    }

    private static func prepare(_ database: OpaquePointer, _ sql: String) throws(FloorError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw .sqlite(sql)
        }
        return statement
    }

    private static func listen(at path: String) throws(FloorError) -> Int32 {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { throw .system("socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .system("socket path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(listener, 512) == 0 else { throw .system("bind \(path)") }
        return listener
    }

    private func watch(_ fd: Int32) throws(FloorError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = fd
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else { throw .system("epoll_ctl") }
    }

    func run() throws(FloorError) {
        var ready = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let count = epoll_wait(epoll, &ready, Int32(ready.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("epoll_wait")
            }
            for index in 0..<Int(count) {
                let fd = ready[index].data.fd
                if fd == listener {
                    try accept()
                } else if let connection = connections[Int(fd)] {
                    readable(connection)
                }
            }
            endRound()
        }
    }

    private func accept() throws(FloorError) {
        while true {
            let client = Glibc.accept(listener, nil, nil)
            guard client >= 0 else { return }
            _ = fcntl(client, F_SETFL, O_NONBLOCK)
            guard Int(client) < Self.maximumConnections else {
                close(client)
                continue
            }
            connections[Int(client)] = FloorConnection(fd: client, bufferSize: Self.bufferSize)
            try watch(client)
        }
    }

    private func readable(_ connection: FloorConnection) {
        let received = connection.read()
        guard received > 0 else {
            if received < 0, errno == EAGAIN { return }
            close(connection.fd)
            connections[Int(connection.fd)] = nil
            return
        }
        connection.forEachFrame { frame in handle(frame, from: connection) }
    }

    private func handle(_ frame: UnsafeRawBufferPointer, from connection: FloorConnection) {
        if frame.find("\"io.propd.Set\"") != nil {
            guard let keyStart = frame.find("\"values\":{\"").map({ $0 + 11 }),
                let keyEnd = frame.index(of: UInt8(ascii: "\""), from: keyStart),
                let valueEnd = frame.index(of: UInt8(ascii: "}"), from: keyEnd + 2)
            else { return }
            set(
                key: UnsafeRawBufferPointer(rebasing: frame[keyStart..<keyEnd]),
                value: UnsafeRawBufferPointer(rebasing: frame[(keyEnd + 2)..<valueEnd]), from: connection)
        } else if frame.find("\"io.propd.Subscribe\"") != nil {
            connection.output.append(static: #"{"parameters":{"event":{"kind":"synced","revision":"#)
            connection.output.append(decimal: revision)
            connection.output.append(static: "}},\"continues\":true}\0")
            connection.isSubscriber = true
            touch(connection)
        } else if frame.find("\"org.varlink.service.GetInfo\"") != nil {
            connection.output.append(static: #"{"parameters":{"vendor":"floor","product":"floor","version":"0","url":"","interfaces":[]}}\#0"#)
            touch(connection)
        } else {
            connection.output.append(static: #"{"parameters":{"properties":[]}}\#0"#)
            touch(connection)
        }
    }

    private func set(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, from connection: FloorConnection) {
        if !inTransaction {
            sqlite3_exec(database, "BEGIN", nil, nil, nil)
            inTransaction = true
        }
        revision += 1
        bindText(upsert, 1, key)
        bindText(upsert, 2, value)
        sqlite3_bind_int64(upsert, 3, revision)
        sqlite3_step(upsert)
        sqlite3_reset(upsert)
        sqlite3_bind_int64(appendHistory, 1, revision)
        bindText(appendHistory, 2, key)
        bindText(appendHistory, 3, value)
        sqlite3_step(appendHistory)
        sqlite3_reset(appendHistory)
        connection.output.append(static: #"{"parameters":{"revision":"#)
        connection.output.append(decimal: revision)
        connection.output.append(static: "}}\0")
        touch(connection)
        events.append(static: #"{"parameters":{"event":{"kind":"set","key":""#)
        events.append(contentsOf: key)
        events.append(static: #"","value":"#)
        events.append(contentsOf: value)
        events.append(static: #","revision":"#)
        events.append(decimal: revision)
        events.append(static: "}},\"continues\":true}\0")
    }

    /// Binds `bytes` as text, valid until the statement is reset
    /// (`SQLITE_STATIC`: the frame outlives the step).
    private func bindText(_ statement: OpaquePointer, _ index: Int32, _ bytes: UnsafeRawBufferPointer) {
        sqlite3_bind_text(statement, index, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
    }

    private func touch(_ connection: FloorConnection) {
        if !touched.contains(connection.fd) { touched.append(connection.fd) }
    }

    /// Commits the round's Sets, then writes the replies, then the events.
    private func endRound() {
        if inTransaction {
            sqlite3_exec(database, "COMMIT", nil, nil, nil)
            inTransaction = false
        }
        for fd in touched {
            connections[Int(fd)]?.writeQueued()
        }
        touched.removeAll(keepingCapacity: true)
        guard !events.isEmpty else { return }
        events.withUnsafeBytes { frames in
            for case let connection? in connections where connection.isSubscriber {
                _ = write(connection.fd, frames.baseAddress, frames.count)
            }
        }
        events.removeAll(keepingCapacity: true)
    }
}

/// What keeps the floor server from starting or running.
enum FloorError: Error, CustomStringConvertible {
    case sqlite(String)
    case system(String)
    case usage

    var description: String {
        switch self {
        case .sqlite(let what): "SQLite failed: \(what)"
        case .system(let call): "\(call) failed: errno \(errno)"
        case .usage: "usage: epoll-floor-server SOCKET DATABASE NORMAL|FULL"
        }
    }
}
