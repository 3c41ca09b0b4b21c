import NIOCore

/// What a serialized `WatchResponse` is, read from its protobuf wire format
/// without decoding its events: a watcher that already has the revisions a
/// message carries (a node's mirror, which applies its own transactions from
/// their replies) passes over it at the cost of a scan of its fields,
/// instead of decoding every key and value into `Data`.
enum WatchResponsePeek {
    /// The revision of the newest event when the message is a plain batch of
    /// events — at least one, each with its key's `mod_revision`; not a
    /// creation, cancellation, compaction, fragment or progress answer —
    /// else nil (the message must be decoded).
    static func newestEventRevision(_ message: ByteBuffer) -> Int64? {
        var reader = WireReader(message)
        var newest: Int64?
        while !reader.isAtEnd {
            guard let (field, wireType) = reader.readTag() else { return nil }
            switch (field, wireType) {
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
                guard var event = reader.readLengthDelimited(), let revision = modRevision(of: &event) else { return nil }
                newest = max(newest ?? revision, revision)
            default:
                if !reader.skip(wireType) { return nil }
            }
        }
        return newest
    }

    /// An `Event`'s `kv.mod_revision`.
    private static func modRevision(of event: inout WireReader) -> Int64? {
        var revision: Int64?
        while !event.isAtEnd {
            guard let (field, wireType) = event.readTag() else { return nil }
            guard field == 2, wireType == .lengthDelimited else {  // kv
                if !event.skip(wireType) { return nil }
                continue
            }
            guard var keyValue = event.readLengthDelimited() else { return nil }
            while !keyValue.isAtEnd {
                guard let (kvField, kvWireType) = keyValue.readTag() else { return nil }
                if kvField == 3, kvWireType == .varint {  // mod_revision
                    guard let value = keyValue.readVarint() else { return nil }
                    revision = Int64(bitPattern: value)
                } else if !keyValue.skip(kvWireType) {
                    return nil
                }
            }
        }
        return revision
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
