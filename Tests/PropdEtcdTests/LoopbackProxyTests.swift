import EtcdTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The proxy the partition tests cut runs in the test process, whose
/// descriptors every test running beside it shares.
@Suite(.timeLimit(.minutes(1))) struct LoopbackProxyTests {
    /// Its pumps close a connection's sockets as soon as the cut shuts them
    /// down, and the freed numbers go to the next sockets anyone opens: the
    /// cut must not shut down a number after its socket was closed.
    @Test func aCutShutsDownNoSocketButItsOwn() throws {
        let target = try LoopbackListener()
        defer { close(target.fd) }
        let proxy = try LoopbackProxy(to: target.port)
        defer { proxy.stop() }
        for _ in 0..<10 {
            proxy.restore()
            let clients = try (0..<60).map { _ in try LoopbackListener.connect(to: proxy.port) }
            // A byte through each: every connection is forwarded (its pumps run).
            for client in clients { #expect(send(client, [1], 1, Int32(MSG_NOSIGNAL)) == 1) }
            let accepted = try (0..<clients.count).map { _ in try target.acceptOne() }
            for socket in accepted { #expect(LoopbackListener.readByte(socket)) }
            // Others' sockets, opened while the cut frees numbers.
            let bystanders = Bystanders()
            let opener = Thread { bystanders.openUntilStopped() }
            opener.start()
            bystanders.waitUntilOpening()
            proxy.cut()
            bystanders.stop()
            let pairs = bystanders.pairs
            let shutDown = pairs.filter { a, b in
                send(a, [2], 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) != 1 || !LoopbackListener.readByte(b)
            }
            #expect(shutDown.isEmpty, "sockets the proxy does not own were shut down: \(shutDown)")
            for (a, b) in pairs {
                close(a)
                close(b)
            }
            for socket in clients + accepted { close(socket) }
        }
    }
}

/// Opens socket pairs, a few hundred at most, until told to stop.
private final class Bystanders: Sendable {
    private struct State {
        var pairs: [(Int32, Int32)] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let ended = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)

    var pairs: [(Int32, Int32)] { state.withLock { $0.pairs } }

    func openUntilStopped() {
        started.signal()
        while state.withLock({ !$0.stopped && $0.pairs.count < 400 }) {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else { break }
            state.withLock { $0.pairs.append((fds[0], fds[1])) }
        }
        ended.signal()
    }

    func waitUntilOpening() { started.wait() }

    func stop() {
        state.withLock { $0.stopped = true }
        ended.wait()
    }
}

/// A listening loopback TCP socket on a free port, and blocking helpers.
private struct LoopbackListener {
    let fd: Int32
    let port: Int

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 128) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else {
            close(fd)
            throw Failure(description: "bind/listen: errno \(errno)")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func acceptOne() throws -> Int32 {
        let socket = accept(fd, nil, nil)
        guard socket >= 0 else { throw Failure(description: "accept: errno \(errno)") }
        return socket
    }

    static func connect(to port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect: errno \(errno)")
        }
        return fd
    }

    /// Whether a byte arrives, waiting up to 10 s.
    static func readByte(_ fd: Int32) -> Bool {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poll, 1, 10_000) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 1
    }
}
