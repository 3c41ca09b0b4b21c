import NIOCore

/// What a serialized `WatchResponse` is, read from its protobuf wire format
/// without decoding its events: a watcher that already has the revisions a
/// message carries (a node's mirror, which applies its own transactions from
/// their replies) passes over it at the cost of a scan of its top-level
/// fields, instead of decoding every key and value into `Data`.
enum WatchResponsePeek {
    /// The header's revision when the message is a plain batch of events —
    /// at least one event; not a creation, cancellation, compaction,
    /// fragment or progress answer — else nil (the message must be decoded).
    ///
    /// A watch response's header revision is etcd's revision when it sent the
    /// message, at or past every event in it.
    static func eventBatchRevision(_ message: ByteBuffer) -> Int64? {
        var reader = WireReader(message)
        var revision: Int64?
        var hasEvents = false
        while !reader.isAtEnd {
            guard let (field, wireType) = reader.readTag() else { return nil }
            switch (field, wireType) {
            case (1, .lengthDelimited):  // header
                guard var header = reader.readLengthDelimited() else { return nil }
                while !header.isAtEnd {
                    guard let (headerField, headerWireType) = header.readTag() else { return nil }
                    if headerField == 3, headerWireType == .varint {
                        guard let value = header.readVarint() else { return nil }
                        revision = Int64(bitPattern: value)
                    } else if !header.skip(headerWireType) {
                        return nil
                    }
                }
            case (2, .varint):  // watch_id: -1 answers a progress request
                guard let id = reader.readVarint() else { return nil }
                if Int64(bitPattern: id) == -1 { return nil }
            case (3, .varint), (4, .varint), (7, .varint):  // created, canceled, fragment
                guard let flag = reader.readVarint() else { return nil }
                if flag != 0 { return nil }
            case (5, .varint):  // compact_revision
                guard let compacted = reader.readVarint() else { return nil }
                if compacted != 0 { return nil }
            case (11, .lengthDelimited):  // events
                guard reader.readLengthDelimited() != nil else { return nil }
                hasEvents = true
            default:
                if !reader.skip(wireType) { return nil }
            }
        }
        return hasEvents ? revision : nil
    }
}

/// Reads protobuf's wire format from a buffer; every read returns nil (or
/// false) on a truncated or malformed message, which the caller then leaves
/// to swift-protobuf's decoder to report.
private struct WireReader {
    enum WireType: UInt64 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5
    }

    private var buffer: ByteBuffer

    init(_ buffer: ByteBuffer) { self.buffer = buffer }

    var isAtEnd: Bool { buffer.readableBytes == 0 }

    mutating func readVarint() -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: UInt64(0), to: 64, by: 7) {
            guard let byte: UInt8 = buffer.readInteger() else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    mutating func readTag() -> (field: UInt64, wireType: WireType)? {
        guard let tag = readVarint(), let wireType = WireType(rawValue: tag & 7) else { return nil }
        return (tag >> 3, wireType)
    }

    /// The field's bytes as a reader of their own.
    mutating func readLengthDelimited() -> WireReader? {
        guard let length = readVarint(), length <= buffer.readableBytes,
            let slice = buffer.readSlice(length: Int(length))
        else { return nil }
        return WireReader(slice)
    }

    mutating func skip(_ wireType: WireType) -> Bool {
        switch wireType {
        case .varint: return readVarint() != nil
        case .fixed64: return buffer.readSlice(length: 8) != nil
        case .fixed32: return buffer.readSlice(length: 4) != nil
        case .lengthDelimited: return readLengthDelimited() != nil
        }
    }
}
