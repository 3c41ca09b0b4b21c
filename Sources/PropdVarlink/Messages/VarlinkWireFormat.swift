public import NIOCore
public import PropdJSON

/// Why a frame cannot be read as a Varlink message at all (as opposed to a
/// message of the wrong shape): the byte stream is no longer trustworthy, so
/// the connection is closed after answering what came before.
public enum VarlinkProtocolViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// The frame is not JSON: bad syntax, invalid UTF-8, or nesting too deep.
    case malformedJSON(JSONParseError)
    /// The frame is JSON but not an object.
    case notAnObject(actual: String)
    /// A message grew past the size limit before its NUL terminator.
    case messageTooLarge(limit: Int)
    /// The peer closed the connection in the middle of a message.
    case truncatedMessage(bytes: Int)
    /// Incomplete messages of all connections together would pass this many
    /// bytes: the connection whose message grew last is closed.
    case partialMessagesOverLimit(limit: Int)
    /// A message was not complete within this many seconds of its first byte.
    case messageTimeout(seconds: Int)

    public var description: String {
        switch self {
        case .malformedJSON(let error): return "message is not valid JSON: \(error)"
        case .notAnObject(let actual): return "message must be a JSON object, not \(actual)"
        case .messageTooLarge(let limit): return "message is larger than the limit of \(limit) bytes"
        case .truncatedMessage(let bytes): return "connection closed inside a message (\(bytes) bytes without NUL)"
        case .partialMessagesOverLimit(let limit):
            return "incomplete messages of all connections would hold more than \(limit) bytes"
        case .messageTimeout(let seconds): return "message not complete within \(seconds) seconds"
        }
    }
}

/// Turning frames into messages and messages into frames.
public enum VarlinkWireFormat {
    /// Nesting deeper than this in a message is refused as malformed.
    public static let defaultMaximumDepth = 128

    /// Parses a frame (the bytes before a NUL) into a message object, in
    /// place from the buffer's readable bytes.
    public static func parseMessage(_ frame: ByteBuffer, maximumDepth: Int = defaultMaximumDepth)
        throws(VarlinkProtocolViolation) -> [String: JSONValue]
    {
        let parsed: Result<JSONValue, JSONParseError> = frame.withUnsafeReadableBytes { bytes in
            Result { () throws(JSONParseError) in try JSONValue(parsingUTF8: bytes, maximumDepth: maximumDepth) }
        }
        switch parsed {
        case .success(.object(let message)): return message
        case .success(let other): throw .notAnObject(actual: other.typeName)
        case .failure(let error): throw .malformedJSON(error)
        }
    }

    /// Appends `{"method":...,"parameters":{...}[,"more":true][,"oneway":true]}` and its NUL.
    public static func write(_ call: VarlinkCall, into buffer: inout ByteBuffer, scratch: inout [UInt8]) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: #"{"method":"#.utf8)
        JSONValue.encodeString(call.method, into: &scratch)
        scratch.append(contentsOf: #","parameters":"#.utf8)
        JSONValue.object(call.parameters).encode(into: &scratch)
        if call.more { scratch.append(contentsOf: #","more":true"#.utf8) }
        if call.oneway { scratch.append(contentsOf: #","oneway":true"#.utf8) }
        if call.upgrade { scratch.append(contentsOf: #","upgrade":true"#.utf8) }
        scratch.append(contentsOf: [UInt8(ascii: "}"), 0])
        buffer.writeBytes(scratch)
    }

    /// Appends `{"parameters":{...}[,"continues":true][,"error":"..."]}` and its NUL.
    public static func write(_ reply: VarlinkReply, into buffer: inout ByteBuffer, scratch: inout [UInt8]) {
        scratch.removeAll(keepingCapacity: true)
        appendReply(to: &scratch, continues: reply.continues, error: reply.error) { out in
            JSONValue.object(reply.parameters).encode(into: &out)
        }
        buffer.writeBytes(scratch)
    }

    /// Appends `{"parameters":{...}}` and its NUL, the parameters writing themselves.
    public static func writeReply(
        _ parameters: some JSONObjectEncodable, into buffer: inout ByteBuffer, scratch: inout [UInt8]
    ) {
        scratch.removeAll(keepingCapacity: true)
        appendReply(to: &scratch, continues: false, error: nil) { out in parameters.encodeJSONObject(into: &out) }
        buffer.writeBytes(scratch)
    }

    /// A streamed reply's whole frame, `{"parameters":{...},"continues":true}`
    /// and its NUL, the parameters object written by `writeParameters`: made
    /// once, then sent as it is on every stream that carries it
    /// (``VarlinkReplyStream/send(frames:)``, one event to many subscribers).
    /// `capacity` is room for the parameters; the frame's own bytes are added.
    public static func continuingReplyFrame(
        reservingCapacity capacity: Int, _ writeParameters: (inout [UInt8]) -> Void
    ) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(capacity + 32)
        appendReply(to: &frame, continues: true, error: nil, writeParameters)
        return frame
    }

    /// The one place a reply's envelope is written:
    /// `{"parameters":` the parameters `[,"continues":true][,"error":"..."]}` and its NUL.
    private static func appendReply(
        to out: inout [UInt8], continues: Bool, error: String?, _ writeParameters: (inout [UInt8]) -> Void
    ) {
        out.append(contentsOf: #"{"parameters":"#.utf8)
        writeParameters(&out)
        if continues { out.append(contentsOf: #","continues":true"#.utf8) }
        if let error {
            out.append(contentsOf: #","error":"#.utf8)
            JSONValue.encodeString(error, into: &out)
        }
        out.append(contentsOf: [UInt8(ascii: "}"), 0])
    }
}
