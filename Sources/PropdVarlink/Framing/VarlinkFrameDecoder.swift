public import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits the inbound byte stream into Varlink frames: the bytes before each
/// NUL, without the NUL.
///
/// Shaped like NIOExtras' `LineBasedFrameDecoder`: it remembers how far it has
/// scanned, so a message arriving in many reads is scanned once. A message
/// longer than `maximumMessageSize` (before its NUL has been seen or not) is a
/// ``VarlinkProtocolViolation/messageTooLarge(limit:)`` and the stream is
/// abandoned: after it nothing can be trusted to be a message boundary.
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(VarlinkFrameDecoder()))
/// ```
public struct VarlinkFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// 8 MiB, the contract's default.
    public static let defaultMaximumMessageSize = 8 * 1024 * 1024

    public let maximumMessageSize: Int
    /// Readable bytes already known to hold no NUL.
    private var scanned = 0
    /// The size of the incomplete message last reported downstream.
    private var reported = 0

    public init(maximumMessageSize: Int = VarlinkFrameDecoder.defaultMaximumMessageSize) {
        self.maximumMessageSize = maximumMessageSize
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try nextFrame(&buffer) else {
            report(buffer.readableBytes, context)
            return .needMoreData
        }
        // A completed message holds nothing any more. Reported here, not
        // left to the next `decode`: `ByteToMessageHandler` calls it only
        // while bytes are left, and a next message already begun must be
        // timed from its own start, not from the one that just completed.
        report(0, context)
        context.fireChannelRead(Self.wrapInboundOut(frame))
        return .continue
    }

    /// Tells the handlers after it how many bytes of an incomplete message it
    /// holds, when that changes (see ``VarlinkPartialMessage``).
    private mutating func report(_ bytes: Int, _ context: ChannelHandlerContext) {
        guard bytes != reported else { return }
        reported = bytes
        context.fireUserInboundEventTriggered(VarlinkPartialMessage(bytes: bytes))
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while let frame = try nextFrame(&buffer) {
            context.fireChannelRead(Self.wrapInboundOut(frame))
        }
        if seenEOF, buffer.readableBytes > 0 {
            let leftover = buffer.readableBytes
            buffer.moveReaderIndex(forwardBy: leftover)
            throw VarlinkProtocolViolation.truncatedMessage(bytes: leftover)
        }
        return .needMoreData
    }

    /// The next complete frame, consuming it and its NUL; nil when none is complete yet.
    private mutating func nextFrame(_ buffer: inout ByteBuffer) throws(VarlinkProtocolViolation) -> ByteBuffer? {
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
