import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the Varlink frames in a byte stream: the bytes before each NUL,
/// without the NUL.
///
/// Shaped like NIOExtras' `LineBasedFrameDecoder`: it remembers how far it
/// has scanned, so a message arriving in many reads is scanned once. A
/// message longer than `maximumMessageSize` (before its NUL has been seen or
/// not) is a ``VarlinkProtocolViolation/messageTooLarge(limit:)``, after
/// which nothing can be trusted to be a message boundary.
///
/// Used by the server's connection handler on the bytes it reads, and by
/// ``VarlinkFrameDecoder`` in a client's pipeline.
struct VarlinkFrameSplitter {
    let maximumMessageSize: Int
    /// Readable bytes already known to hold no NUL.
    private var scanned = 0

    init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// The next complete frame, consuming it and its NUL; nil when none is complete yet.
    mutating func nextFrame(_ buffer: inout ByteBuffer) throws(VarlinkProtocolViolation) -> ByteBuffer? {
        let start = scanned
        let nul: Int? = buffer.withUnsafeReadableBytes { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                let found = memchr(base + start, 0, bytes.count - start)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
        guard let nul else {
            scanned = buffer.readableBytes
            if scanned > maximumMessageSize { throw .messageTooLarge(limit: maximumMessageSize) }
            return nil
        }
        scanned = 0
        if nul > maximumMessageSize { throw .messageTooLarge(limit: maximumMessageSize) }
        // `nul` indexes the readable bytes, so both reads are in range.
        guard let frame = buffer.readSlice(length: nul) else { return nil }
        buffer.moveReaderIndex(forwardBy: 1)
        return frame
    }
}
