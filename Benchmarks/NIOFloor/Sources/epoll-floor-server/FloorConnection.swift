import FloorFrames

#if canImport(Glibc)
import Glibc
#endif

/// One client connection: what it sent and has not been split into frames
/// yet, in a fixed buffer as the C floor's `conn.in`, and the replies its
/// round has queued.
final class FloorConnection {
    let fd: Int32
    private let input: UnsafeMutableRawBufferPointer
    private var used = 0
    var output: [UInt8] = []
    var isSubscriber = false

    init(fd: Int32, bufferSize: Int) {
        self.fd = fd
        input = .allocate(byteCount: bufferSize, alignment: 1)
        output.reserveCapacity(1024)
    }

    deinit { input.deallocate() }

    /// Reads what the socket has after what is held; `read(2)`'s result.
    func read() -> Int {
        let received = Glibc.read(fd, input.baseAddress.map { $0 + used }, input.count - used)
        if received > 0 { used += received }
        return received
    }

    /// Calls `body` with each whole frame held (without its NUL), then
    /// keeps only the unfinished rest.
    func forEachFrame(_ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        let held = UnsafeRawBufferPointer(rebasing: input[..<used])
        while let end = held.index(of: 0, from: start) {
            body(UnsafeRawBufferPointer(rebasing: held[start..<end]))
            start = end + 1
        }
        guard start > 0, let base = input.baseAddress else { return }
        memmove(base, base + start, used - start)
        used -= start
    }

    /// Writes the queued replies with one `write(2)`.
    func writeQueued() {
        guard !output.isEmpty else { return }
        _ = output.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        output.removeAll(keepingCapacity: true)
    }
}

extension [UInt8] {
    mutating func append(static text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` (not negative) in decimal ASCII.
    mutating func append(decimal value: Int64) {
        withDecimalDigits(of: value) { append(contentsOf: $0) }
    }
}
