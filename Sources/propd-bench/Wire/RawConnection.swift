import Glibc

/// Why the benchmark could not talk to propd.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    static func system(_ what: String) -> BenchError {
        BenchError("\(what): \(String(cString: strerror(errno)))")
    }
}

/// One Unix stream connection to propd, spoken to in raw NUL-framed JSON.
///
/// Deliberately not PropdClient: the client must cost the daemon as little
/// CPU as possible (both share two cores), so it writes prebuilt frames and
/// only counts NULs in what it reads, without decoding JSON.
final class RawConnection {
    let fd: Int32
    /// Bytes read after the last complete frame.
    private(set) var partial: [UInt8] = []
    private var readBuffer: UnsafeMutableRawBufferPointer

    init(path: String, nonBlocking: Bool = false) throws(BenchError) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .system("socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw BenchError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = BenchError.system("connect \(path)")
            close(fd)
            throw error
        }
        self.fd = fd
        self.readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        if nonBlocking { makeNonBlocking() }
    }

    func makeNonBlocking() {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(fd)
        readBuffer.deallocate()
    }

    /// Writes all of `bytes`, waiting for the socket when it is full.
    func send(_ bytes: [UInt8]) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 1000)
                    continue
                }
                throw .system("send")
            }
            offset += written
        }
    }

    /// Reads what is available (blocking when the socket is blocking) and
    /// calls `frame` with each complete frame, without its NUL. Returns the
    /// number of frames; 0 with nothing read on a non-blocking socket.
    /// - Throws: when the daemon closed the connection.
    @discardableResult
    func receive(_ frame: (UnsafeRawBufferPointer) -> Void) throws(BenchError) -> Int {
        let count = read(fd, readBuffer.baseAddress, readBuffer.count)
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return 0 }
            throw .system("read")
        }
        if count == 0 { throw BenchError("propd closed the connection") }
        return split(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), frame)
    }

    /// Reads and counts complete frames without looking inside them.
    func receiveCount() throws(BenchError) -> Int {
        try receive { _ in }
    }

    /// Blocks until one whole frame arrives and returns it.
    func receiveFrame() throws(BenchError) -> [UInt8] {
        var frames: [[UInt8]] = []
        while frames.isEmpty {
            try receive { frames.append(Array($0)) }
        }
        guard frames.count == 1 else { throw BenchError("expected one reply, got \(frames.count)") }
        return frames[0]
    }

    private func split(_ chunk: UnsafeRawBufferPointer, _ frame: (UnsafeRawBufferPointer) -> Void) -> Int {
        var frames = 0
        var start = 0
        let base = chunk.baseAddress!
        while start < chunk.count {
            guard let found = memchr(base + start, 0, chunk.count - start) else { break }
            let end = base.distance(to: UnsafeRawPointer(found))
            if partial.isEmpty {
                frame(UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
            } else {
                partial.append(contentsOf: chunk[start..<end])
                partial.withUnsafeBytes { frame($0) }
                partial.removeAll(keepingCapacity: true)
            }
            frames += 1
            start = end + 1
        }
        if start < chunk.count { partial.append(contentsOf: chunk[start...]) }
        return frames
    }
}

extension UnsafeRawBufferPointer {
    /// Whether the frame contains `needle` (a few bytes: a naive scan is enough).
    func contains(_ needle: StaticString) -> Bool {
        let n = needle.utf8CodeUnitCount
        guard n > 0, n <= count, let base = baseAddress else { return false }
        let first = Int32(needle.utf8Start[0])
        var offset = 0
        while offset + n <= count, let found = memchr(base + offset, first, count - offset - n + 1) {
            if memcmp(found, needle.utf8Start, n) == 0 { return true }
            offset = base.distance(to: UnsafeRawPointer(found)) + 1
        }
        return false
    }

    var isError: Bool { contains(#"{"error""#) }
}

extension RawConnection {
    /// `count` connections, each subscribed to `key` (synced), made non-blocking.
    static func subscribers(_ count: Int, to key: String, at socket: String) throws(BenchError) -> [RawConnection] {
        var listeners: [RawConnection] = []
        for _ in 0..<count {
            let listener = try RawConnection(path: socket)
            try listener.subscribe(key)
            listeners.append(listener)
        }
        for listener in listeners { listener.makeNonBlocking() }
        return listeners
    }
}
