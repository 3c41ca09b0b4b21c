import NIOCore

/// HTTP/2's frame layout (RFC 9113 §4.1, §6) as ``HTTP2ClientSession``
/// reads and writes it: a 9-byte header (24-bit length, type, flags, 31-bit
/// stream ID), then the payload.
enum HTTP2Wire {
    static let frameHeaderSize = 9
    /// SETTINGS_MAX_FRAME_SIZE's initial value, and the largest frame this
    /// client accepts: it never advertises a larger one.
    static let defaultMaxFrameSize = 16_384
    /// The flow-control window every stream and the connection start with.
    static let defaultWindow = 65_535
    static let maxWindow = Int(Int32.max)
    static let clientPreface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    enum FrameType: UInt8 {
        case data = 0, headers, priority, rstStream, settings, pushPromise, ping, goAway, windowUpdate, continuation
    }

    enum Flag {
        static let endStream: UInt8 = 0x1
        static let ack: UInt8 = 0x1
        static let endHeaders: UInt8 = 0x4
        static let padded: UInt8 = 0x8
        static let priority: UInt8 = 0x20
    }

    enum Setting: UInt16 {
        case headerTableSize = 1, enablePush, maxConcurrentStreams, initialWindowSize, maxFrameSize, maxHeaderListSize
    }

    /// RFC 9113 §7's error codes this client sends or reads.
    enum ErrorCode: UInt32 {
        case noError = 0, protocolError, internalError, flowControlError, settingsTimeout, streamClosed, frameSizeError
        case refusedStream, cancel, compressionError
    }

    /// A frame's header.
    struct FrameHeader: Equatable {
        var length: Int
        var type: UInt8
        var flags: UInt8
        var streamID: UInt32

        func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
    }

    /// The header of the frame at the start of `bytes`, if all 9 bytes have arrived.
    static func peekFrameHeader(_ bytes: ByteBuffer) -> FrameHeader? {
        guard let lengthHigh = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self),
            let lengthLow = bytes.getInteger(at: bytes.readerIndex + 1, as: UInt16.self),
            let type = bytes.getInteger(at: bytes.readerIndex + 3, as: UInt8.self),
            let flags = bytes.getInteger(at: bytes.readerIndex + 4, as: UInt8.self),
            let streamID = bytes.getInteger(at: bytes.readerIndex + 5, as: UInt32.self)
        else { return nil }
        return FrameHeader(
            length: Int(lengthHigh) << 16 | Int(lengthLow), type: type, flags: flags, streamID: streamID & 0x7fff_ffff)
    }

    static func writeFrameHeader(_ header: FrameHeader, into out: inout ByteBuffer) {
        out.writeInteger(UInt8(truncatingIfNeeded: header.length >> 16))
        out.writeInteger(UInt16(truncatingIfNeeded: header.length))
        out.writeInteger(header.type)
        out.writeInteger(header.flags)
        out.writeInteger(header.streamID)
    }

    /// Fills in the header of a frame whose payload was written after room for it.
    static func setFrameHeader(_ header: FrameHeader, at index: Int, in out: inout ByteBuffer) {
        out.setInteger(UInt8(truncatingIfNeeded: header.length >> 16), at: index)
        out.setInteger(UInt16(truncatingIfNeeded: header.length), at: index + 1)
        out.setInteger(header.type, at: index + 3)
        out.setInteger(header.flags, at: index + 4)
        out.setInteger(header.streamID, at: index + 5)
    }

    static func writeFrame(_ type: FrameType, flags: UInt8 = 0, streamID: UInt32, payload: ByteBuffer, into out: inout ByteBuffer) {
        writeFrameHeader(
            FrameHeader(length: payload.readableBytes, type: type.rawValue, flags: flags, streamID: streamID), into: &out)
        out.writeImmutableBuffer(payload)
    }

    static func writeRstStream(_ streamID: UInt32, _ code: ErrorCode, into out: inout ByteBuffer) {
        writeFrameHeader(FrameHeader(length: 4, type: FrameType.rstStream.rawValue, flags: 0, streamID: streamID), into: &out)
        out.writeInteger(code.rawValue)
    }

    static func writeWindowUpdate(_ streamID: UInt32, increment: Int, into out: inout ByteBuffer) {
        writeFrameHeader(FrameHeader(length: 4, type: FrameType.windowUpdate.rawValue, flags: 0, streamID: streamID), into: &out)
        out.writeInteger(UInt32(increment))
    }

    static func writeGoAway(lastStreamID: UInt32, _ code: ErrorCode, into out: inout ByteBuffer) {
        writeFrameHeader(FrameHeader(length: 8, type: FrameType.goAway.rawValue, flags: 0, streamID: 0), into: &out)
        out.writeInteger(lastStreamID)
        out.writeInteger(code.rawValue)
    }

    static func writeSettings(_ settings: [(Setting, UInt32)], into out: inout ByteBuffer) {
        writeFrameHeader(
            FrameHeader(length: 6 * settings.count, type: FrameType.settings.rawValue, flags: 0, streamID: 0), into: &out)
        for (setting, value) in settings {
            out.writeInteger(setting.rawValue)
            out.writeInteger(value)
        }
    }

    static func writeSettingsAck(into out: inout ByteBuffer) {
        writeFrameHeader(FrameHeader(length: 0, type: FrameType.settings.rawValue, flags: Flag.ack, streamID: 0), into: &out)
    }

    /// A frame's payload without its padding (RFC 9113 §6.1): the pad
    /// length byte first, the padding last.
    static func unpadded(_ payload: ByteBuffer, _ header: FrameHeader) throws(HTTP2ConnectionError) -> ByteBuffer {
        guard header.has(Flag.padded) else { return payload }
        var payload = payload
        guard let padLength = payload.readInteger(as: UInt8.self), Int(padLength) <= payload.readableBytes else {
            throw .malformedFrame(type: header.type, "padding longer than the frame")
        }
        return payload.getSlice(at: payload.readerIndex, length: payload.readableBytes - Int(padLength)) ?? ByteBuffer()
    }
}

/// What makes ``HTTP2ClientSession`` drop a connection: the peer broke
/// HTTP/2's rules (RFC 9113), and the connection's state can no longer be trusted.
enum HTTP2ConnectionError: Error, Equatable, CustomStringConvertible {
    /// The server's first frame was not SETTINGS.
    case prefaceMissing
    /// A frame longer than this client's SETTINGS_MAX_FRAME_SIZE.
    case frameTooLarge(type: UInt8, length: Int)
    /// A frame whose length, stream or fields break its type's layout.
    case malformedFrame(type: UInt8, String)
    /// A frame between a HEADERS frame and the CONTINUATION that ends its block.
    case headerBlockInterrupted(type: UInt8)
    /// A header block HPACK cannot decode.
    case headerBlockUnreadable(String)
    /// PUSH_PROMISE, which this client disabled in its SETTINGS.
    case pushRefused
    /// A window grown past 2³¹ − 1, or a setting out of its range.
    case flowControl(String)

    /// The code the GOAWAY that closes the connection carries.
    var code: HTTP2Wire.ErrorCode {
        switch self {
        case .frameTooLarge: .frameSizeError
        case .headerBlockUnreadable: .compressionError
        case .flowControl: .flowControlError
        case .prefaceMissing, .malformedFrame, .headerBlockInterrupted, .pushRefused: .protocolError
        }
    }

    var description: String {
        switch self {
        case .prefaceMissing: "the server's first frame is not SETTINGS"
        case .frameTooLarge(let type, let length): "a frame of type \(type) is \(length) bytes, over the 16,384 allowed"
        case .malformedFrame(let type, let reason): "a malformed frame of type \(type): \(reason)"
        case .headerBlockInterrupted(let type): "a frame of type \(type) inside a header block"
        case .headerBlockUnreadable(let reason): "an unreadable header block: \(reason)"
        case .pushRefused: "a PUSH_PROMISE, though push is disabled"
        case .flowControl(let reason): "flow control broken: \(reason)"
        }
    }
}
