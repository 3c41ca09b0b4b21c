import NIOCore

/// Writes protobuf's wire format (proto3: a field at its default value is
/// left out, but for a `oneof` member, which is written whenever set).
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(256)
    }

    mutating func varint(field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, wireType: 0)
        rawVarint(value)
    }

    mutating func int64(field: Int, _ value: Int64, always: Bool = false) {
        guard always || value != 0 else { return }
        tag(field, wireType: 0)
        rawVarint(UInt64(bitPattern: value))
    }

    mutating func bytes(field: Int, _ value: [UInt8], always: Bool = false) {
        guard always || !value.isEmpty else { return }
        tag(field, wireType: 2)
        rawVarint(UInt64(value.count))
        bytes += value
    }

    /// A nested message: `body` writes its fields, its length goes before them.
    mutating func message(field: Int, _ body: (inout ProtobufWriter) -> Void) {
        tag(field, wireType: 2)
        let lengthAt = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        // Rare (a long value): the length takes more than its one byte.
        var size = 1
        while length >> (7 * size) != 0 { size += 1 }
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: lengthAt + 1)
        var rest = length
        for index in lengthAt..<(lengthAt + size) {
            bytes[index] = UInt8(rest & 0x7f) | (index < lengthAt + size - 1 ? 0x80 : 0)
            rest >>= 7
        }
    }

    private mutating func tag(_ field: Int, wireType: UInt64) {
        rawVarint(UInt64(field) << 3 | wireType)
    }

    private mutating func rawVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}

/// Bytes that are not a well-formed protobuf message.
struct MalformedProtobuf: Error, CustomStringConvertible {
    var description: String { "the etcd member's message is not well-formed protobuf" }
}

/// Reads protobuf's wire format, field by field: ``TxnWire``'s replies and
/// ``WatchResponsePeek``'s scan of a watch message.
struct ProtobufReader {
    enum Field {
        case varint(Int, UInt64)
        /// A nested message, bytes or string: its own bytes, to read on.
        case lengthDelimited(Int, ProtobufReader)
        /// A fixed-width field: none in the messages read here.
        case fixed
    }

    private var buffer: ByteBuffer

    init(_ buffer: ByteBuffer) {
        self.buffer = buffer
    }

    /// The bytes not read yet.
    var remainingBytes: [UInt8] { Array(buffer.readableBytesView) }

    mutating func nextField() throws(MalformedProtobuf) -> Field? {
        guard buffer.readableBytes > 0 else { return nil }
        let key = try rawVarint()
        guard key >> 3 > 0, key >> 3 <= UInt64(Int32.max) else { throw MalformedProtobuf() }
        let field = Int(key >> 3)
        switch key & 7 {
        case 0:
            return .varint(field, try rawVarint())
        case 1, 5:
            guard buffer.readSlice(length: key & 7 == 1 ? 8 : 4) != nil else { throw MalformedProtobuf() }
            return .fixed
        case 2:
            let length = try rawVarint()
            guard length <= UInt64(buffer.readableBytes), let slice = buffer.readSlice(length: Int(length)) else {
                throw MalformedProtobuf()
            }
            return .lengthDelimited(field, ProtobufReader(slice))
        default:
            throw MalformedProtobuf()
        }
    }

    private mutating func rawVarint() throws(MalformedProtobuf) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard let byte = buffer.readInteger(as: UInt8.self) else { throw MalformedProtobuf() }
            value |= UInt64(byte & 0x7f) << UInt64(shift)
            if byte < 0x80 { return value }
        }
        throw MalformedProtobuf()
    }
}
