public import PropdJSON
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A Varlink client connection on a plain blocking socket: each call writes
/// its message and reads the reply on the calling thread. It starts no
/// event loop and no thread, so a command that makes a call or two and exits
/// (propctl) pays for nothing else. Calls from several threads take turns.
///
/// ```swift
/// let connection = try VarlinkSocketConnection.connect(to: "/run/propd/propd.sock")
/// let reply = try connection.call("io.propd.Get", ["keys": ["room.temp"]])
/// connection.close()
/// ```
/// > Tip: it blocks the calling thread for the round trip; a server or an
/// > app with many calls in flight wants ``VarlinkConnection``.
public final class VarlinkSocketConnection: Sendable {
    public let path: String
    private let maximumMessageSize: Int
    /// The socket (-1 once closed) and the bytes read past the last reply.
    private let state: Mutex<(fd: Int32, buffer: [UInt8])>

    private init(path: String, fd: Int32, maximumMessageSize: Int) {
        self.path = path
        self.maximumMessageSize = maximumMessageSize
        state = Mutex((fd, []))
    }

    /// Connects to the Unix socket at `path`.
    public static func connect(
        to path: String, maximumMessageSize: Int = VarlinkFrameDecoder.defaultMaximumMessageSize
    ) throws(VarlinkConnectionError) -> VarlinkSocketConnection {
        func failure(_ reason: String) -> VarlinkConnectionError {
            VarlinkConnectionError(code: .cannotConnect, path: path, reason: reason)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw failure("the path is longer than \(capacity - 1) bytes") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw failure(reason)
        }
        return VarlinkSocketConnection(path: path, fd: fd, maximumMessageSize: maximumMessageSize)
    }

    /// Calls `method` and returns its reply's parameters.
    ///
    /// - Throws: ``VarlinkCallError`` when the service answers with an error,
    ///   ``VarlinkConnectionError`` when the connection fails first.
    public func call(_ method: String, _ parameters: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        let message = JSONValue.object(["method": .string(method), "parameters": .object(parameters)])
        var bytes = message.jsonBytes
        bytes.append(0)
        return try state.withLock { state throws -> [String: JSONValue] in
            guard state.fd >= 0 else { throw closed("the connection is closed") }
            try send(bytes, on: state.fd)
            let frame = try receiveFrame(&state)
            let reply: VarlinkReply
            do {
                guard case .object(let object) = try JSONValue(parsingUTF8: frame) else {
                    throw VarlinkConnectionError(code: .malformedReply, path: path, reason: "the reply is not an object")
                }
                reply = try VarlinkReply(message: object)
            } catch let error as VarlinkConnectionError {
                throw error
            } catch {
                throw VarlinkConnectionError(code: .malformedReply, path: path, reason: "\(error)")
            }
            if let name = reply.error { throw VarlinkCallError(name: name, parameters: reply.parameters) }
            return reply.parameters
        }
    }

    /// Closes the socket; later calls fail with `connectionClosed`.
    public func close() {
        state.withLock { state in
            if state.fd >= 0 { Glibc.close(state.fd) }
            state.fd = -1
        }
    }

    deinit { close() }

    private func closed(_ reason: String) -> VarlinkConnectionError {
        VarlinkConnectionError(code: .connectionClosed, path: path, reason: reason)
    }

    private func send(_ bytes: [UInt8], on fd: Int32) throws(VarlinkConnectionError) {
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                // MSG_NOSIGNAL: a closed peer is an error here, not a SIGPIPE.
                let n = Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n > 0 {
                    offset += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return errno
                }
            }
            return nil
        }
        if let failure { throw closed(String(cString: strerror(failure))) }
    }

    /// The next NUL-terminated message, without its NUL.
    private func receiveFrame(_ state: inout (fd: Int32, buffer: [UInt8])) throws(VarlinkConnectionError) -> [UInt8] {
        var scanned = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let nul = state.buffer[scanned...].firstIndex(of: 0) {
                guard nul <= maximumMessageSize else { break }
                let frame = Array(state.buffer[..<nul])
                state.buffer.removeSubrange(...nul)
                return frame
            }
            scanned = state.buffer.count
            guard scanned <= maximumMessageSize else { break }
            let n = chunk.withUnsafeMutableBytes { Glibc.recv(state.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                state.buffer.append(contentsOf: chunk[0..<n])
            } else if n < 0, errno == EINTR {
                continue
            } else {
                throw closed(n == 0 ? "the service closed the connection" : String(cString: strerror(errno)))
            }
        }
        // The rest of that reply cannot be skipped reliably: the connection is done.
        Glibc.close(state.fd)
        state.fd = -1
        throw VarlinkConnectionError(
            code: .malformedReply, path: path, reason: "a reply longer than \(maximumMessageSize) bytes")
    }
}
