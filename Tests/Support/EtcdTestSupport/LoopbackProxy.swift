import Foundation
import Synchronization

/// A TCP forwarder on a free loopback port to one etcd member, which a test
/// can cut: the connections through it are reset and new ones refused until
/// it is restored. A node given the proxy's URL loses etcd as in a network
/// partition, while etcd and the other nodes go on.
///
/// ```swift
/// let proxy = try LoopbackProxy(to: cluster.members[0].clientPort)
/// // propd --etcd proxy.clientURL ...
/// proxy.cut()       // the node's watch and requests fail
/// proxy.restore()   // the node connects again
/// proxy.holdReplies()  // requests reach etcd, nothing comes back (until restore)
/// proxy.stop()      // its threads hold it until stopped
/// ```
public final class LoopbackProxy: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    // Descriptors are the process's, shared with every test running beside
    // this one: a socket is shut down or closed only under the lock, and
    // only while `sockets` (or `listenerOpen`) says it is still open. A
    // shutdown of a number already closed would hit whatever socket took
    // that number since, such as another test's connection.
    private struct State {
        var isCut = false
        var isStopped = false
        /// What the member sends is dropped: a request applies, its reply is lost.
        var holdsReplies = false
        /// Both ends of every forwarded connection, open until both pumps end.
        var sockets: Set<Int32> = []
        /// The source of each pump that has ended while its partner still runs.
        var endedPumps: Set<Int32> = []
        var listenerOpen = true
    }

    public let port: Int
    private let targetPort: Int
    private let listener: Int32
    private let state = Mutex(State())

    /// The URL `--etcd` takes to reach the member through the proxy.
    public var clientURL: String { "http://127.0.0.1:\(port)" }

    public init(to targetPort: Int) throws {
        self.targetPort = targetPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw Failure(description: "bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Resets every connection through the proxy and refuses new ones.
    public func cut() {
        state.withLock { state in
            state.isCut = true
            for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Forwards new connections again, both ways.
    public func restore() {
        state.withLock { state in
            state.isCut = false
            state.holdsReplies = false
        }
    }

    /// Drops whatever the member sends from now on, on every connection:
    /// requests still reach it and apply, their replies never arrive.
    public func holdReplies() {
        state.withLock { $0.holdsReplies = true }
    }

    /// Cuts every connection and stops listening.
    public func stop() {
        let first = state.withLock { state in
            defer { state.isStopped = true }
            return !state.isStopped
        }
        guard first else { return }
        cut()
        // Wakes the accept loop, which closes the listener.
        state.withLock { state in
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            // Not inherited by the daemons the tests spawn.
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let (refused, stopped) = state.withLock { ($0.isCut, $0.isStopped) }
            if stopped { close(client); break }
            if refused { close(client); continue }
            guard let server = connectToTarget() else { close(client); continue }
            // Checked again with the sockets taken in: a cut meanwhile refuses it.
            let forwarded = state.withLock { state in
                guard !state.isCut, !state.isStopped else { return false }
                state.sockets.formUnion([client, server])
                return true
            }
            guard forwarded else {
                close(client)
                close(server)
                continue
            }
            Thread { [self] in pump(from: client, to: server, replies: false) }.start()
            Thread { [self] in pump(from: server, to: client, replies: true) }.start()
        }
        state.withLock { state in
            state.listenerOpen = false
            close(listener)
        }
    }

    private func connectToTarget() -> Int32? {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard server >= 0 else { return nil }
        var address = sockaddr_in.loopback(port: targetPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(server)
            return nil
        }
        return server
    }

    /// Copies bytes one way until either end closes, then shuts both down,
    /// which ends the other pump; the second of the two to end closes the
    /// sockets.
    /// `replies`: the member-to-client direction, which ``holdReplies()`` drops.
    private func pump(from source: Int32, to sink: Int32, replies: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            if replies, state.withLock({ $0.holdsReplies }) { continue }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { write(sink, $0.baseAddress.map { $0 + sent }, count - sent) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break copying }
                sent += written
            }
        }
        state.withLock { state in
            shutdown(source, Int32(SHUT_RDWR))
            shutdown(sink, Int32(SHUT_RDWR))
            guard state.endedPumps.remove(sink) != nil else {
                state.endedPumps.insert(source)
                return
            }
            state.sockets.subtract([source, sink])
            close(source)
            close(sink)
        }
    }
}
