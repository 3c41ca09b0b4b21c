import NIOCore
import NIOEmbedded
import NIOHTTP2

@testable import PropdEtcd

/// swift-nio-http2's server handler on an embedded channel, its frames recorded.
final class ServerPeer {
    let channel = EmbeddedChannel()
    private let recorder = FrameRecorder()
    /// Every DATA byte received, by stream.
    private(set) var receivedData: [Int: String] = [:]

    init(settings: HTTP2Settings = nioDefaultSettings) throws {
        try channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server, initialSettings: settings))
        try channel.pipeline.syncOperations.addHandler(recorder)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    /// Hands the client's bytes to the server, emptying `bytes`.
    func receive(_ bytes: inout ByteBuffer) throws {
        try channel.writeInbound(bytes)
        bytes.clear()
    }

    /// What the server wrote since the last call.
    func sent() throws -> ByteBuffer {
        var bytes = ByteBuffer()
        while let data = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(var buffer) = data { bytes.writeBuffer(&buffer) }
        }
        return bytes
    }

    func send(_ payload: HTTP2Frame.FramePayload, on stream: HTTP2StreamID) throws {
        try channel.writeOutbound(HTTP2Frame(streamID: stream, payload: payload))
    }

    func changeSettings(_ settings: HTTP2Settings) throws {
        try send(.settings(.settings(settings)), on: .rootStream)
    }

    /// The frames received since the last call.
    func frames() -> [HTTP2Frame] {
        let frames = recorder.frames
        recorder.frames = []
        for frame in frames {
            guard case .data(let data) = frame.payload, case .byteBuffer(let bytes) = data.data else { continue }
            receivedData[Int(frame.streamID), default: ""] += String(buffer: bytes)
            if data.endStream { ended.insert(Int(frame.streamID)) }
        }
        return frames
    }

    /// The lengths of the DATA frames on `stream` received since the last call.
    func dataFrameLengths(on stream: Int) -> [Int] {
        frames().compactMap { frame in
            guard Int(frame.streamID) == stream, case .data(let data) = frame.payload else { return nil }
            return data.data.readableBytes
        }
    }

    /// The DATA received on `stream` so far, and whether it ended the stream.
    func data(on stream: Int) -> (text: String, endStream: Bool) {
        _ = frames()
        return (receivedData[stream] ?? "", ended.contains(stream))
    }

    private var ended: Set<Int> = []
}

final class FrameRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    var frames: [HTTP2Frame] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        frames.append(unwrapInboundIn(data))
    }
}

/// A frame as a server could write it, whether or not HTTP/2 allows it.
func handWrittenFrame(_ type: HTTP2Wire.FrameType, flags: UInt8, stream: UInt32, _ payload: ByteBuffer) -> ByteBuffer {
    var bytes = ByteBuffer()
    bytes.writeInteger(UInt8(payload.readableBytes >> 16))
    bytes.writeInteger(UInt16(truncatingIfNeeded: payload.readableBytes))
    bytes.writeInteger(type.rawValue)
    bytes.writeInteger(flags)
    bytes.writeInteger(stream)
    bytes.writeImmutableBuffer(payload)
    return bytes
}

func + (lhs: ByteBuffer, rhs: ByteBuffer) -> ByteBuffer {
    var joined = lhs
    joined.writeImmutableBuffer(rhs)
    return joined
}
