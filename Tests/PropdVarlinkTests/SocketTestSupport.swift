import Foundation
import Logging
import NIOCore
import PropdJSON
import PropdVarlink

#if canImport(Glibc)
import Glibc
#endif

struct TimedOut: Error {}

/// Runs `body`, failing with ``TimedOut`` if it has not finished after
/// `seconds` (a guard against hangs, never a synchronisation).
func withTimeout<T: Sendable>(_ seconds: Double = 10, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimedOut()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// A unique socket path short enough for sun_path.
func temporarySocketPath() -> String {
    "/tmp/pv-\(getpid())-\(UUID().uuidString.prefix(8)).sock"
}

/// A running test server; `stop()` shuts it down gracefully and waits.
struct TestServer {
    let server: VarlinkServer
    let path: String
    let lot: ParkingLot
    let task: Task<Void, any Error>

    static func start(
        configuration: VarlinkServerConfiguration = VarlinkServerConfiguration(),
        address: VarlinkBindAddress? = nil,
        path: String = temporarySocketPath()
    ) async throws -> TestServer {
        let lot = ParkingLot()
        let server = try VarlinkServer(
            address: address ?? .path(path), info: TestInterface.info,
            interfaces: [TestInterface.interface(lot: lot)], configuration: configuration,
            logger: Logger(label: "varlink-test"))
        let task = Task { try await server.run() }
        try await withTimeout { try await server.listening() }
        return TestServer(server: server, path: path, lot: lot, task: task)
    }

    func connect() async throws -> VarlinkConnection {
        try await VarlinkConnection.connect(to: path)
    }

    func stop() async throws {
        server.beginGracefulShutdown()
        let task = self.task
        try await withTimeout { try await task.value }
    }
}

/// A plain blocking Unix socket, for sending bytes no well-behaved client sends.
final class RawSocket {
    private let fd: Int32
    private var received: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
        // A hang becomes a failed read rather than a stuck test.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) { send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads until `count` replies have arrived, or the peer closes (fewer then).
    func replies(_ count: Int) -> [VarlinkReply] {
        var replies: [VarlinkReply] = []
        while replies.count < count {
            if let nul = received.firstIndex(of: 0) {
                let frame = ByteBuffer(bytes: received[..<nul])
                received.removeSubrange(...nul)
                guard let message = try? VarlinkWireFormat.parseMessage(frame),
                    let reply = try? VarlinkReply(message: message)
                else { return replies }
                replies.append(reply)
                continue
            }
            guard readMore() else { return replies }
        }
        return replies
    }

    /// Reads until `count` bytes have arrived, or the peer closes or
    /// stays silent past the receive timeout (fewer then).
    func receive(count: Int) -> [UInt8] {
        while received.count < count, readMore() {}
        let taken = Array(received.prefix(count))
        received.removeFirst(taken.count)
        return taken
    }

    /// Ends both directions: the peer sees the connection gone.
    func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// True when the peer has closed the connection (after reading whatever remains).
    func isClosedByPeer() -> Bool {
        while readMore() {}
        return lastReadWasEOF
    }

    private var lastReadWasEOF = false

    private func readMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 {
            // A server closing with our unread bytes in its buffer resets the connection.
            lastReadWasEOF = n == 0 || errno == ECONNRESET
            return false
        }
        received.append(contentsOf: chunk[..<n])
        return true
    }
}

extension String {
    /// A call frame: the JSON text and its NUL.
    static func call(_ method: String, _ parameters: String = "{}", more: Bool = false, oneway: Bool = false) -> String {
        "{\"method\":\"\(method)\",\"parameters\":\(parameters)\(more ? ",\"more\":true" : "")\(oneway ? ",\"oneway\":true" : "")}\0"
    }
}

/// A Unix stream socket bound at `path`, not yet listening.
func boundUnixSocket(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in Array(path.utf8).enumerated() { raw[i] = b }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    return fd
}
