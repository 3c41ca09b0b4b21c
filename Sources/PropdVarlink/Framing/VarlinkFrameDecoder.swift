public import NIOCore

/// Splits the inbound byte stream into Varlink frames (see
/// ``VarlinkFrameSplitter``) for the handlers after it: a client's pipeline.
/// A message over `maximumMessageSize` is a
/// ``VarlinkProtocolViolation/messageTooLarge(limit:)`` and the stream is
/// abandoned; bytes left without a NUL at the end of the stream are a
/// ``VarlinkProtocolViolation/truncatedMessage(bytes:)``.
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(VarlinkFrameDecoder()))
/// ```
public struct VarlinkFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// 8 MiB, the contract's default.
    public static let defaultMaximumMessageSize = 8 * 1024 * 1024

    public var maximumMessageSize: Int { splitter.maximumMessageSize }
    private var splitter: VarlinkFrameSplitter

    public init(maximumMessageSize: Int = VarlinkFrameDecoder.defaultMaximumMessageSize) {
        splitter = VarlinkFrameSplitter(maximumMessageSize: maximumMessageSize)
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try splitter.nextFrame(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(frame))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while let frame = try splitter.nextFrame(&buffer) {
            context.fireChannelRead(Self.wrapInboundOut(frame))
        }
        if seenEOF, buffer.readableBytes > 0 {
            let leftover = buffer.readableBytes
            buffer.moveReaderIndex(forwardBy: leftover)
            throw VarlinkProtocolViolation.truncatedMessage(bytes: leftover)
        }
        return .needMoreData
    }
}
