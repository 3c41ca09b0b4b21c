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
        // A truncated or malformed message is left to swift-protobuf's decoder to report.
        try? newestEventRevision(reading: ProtobufReader(message))
    }

    private static func newestEventRevision(reading message: ProtobufReader) throws(MalformedProtobuf) -> Int64? {
        var reader = message
        var newest: Int64?
        while let field = try reader.nextField() {
            switch field {
            case .varint(2, let id):  // watch_id: -1 answers a progress request
                if Int64(bitPattern: id) == -1 { return nil }
            case .varint(3, let flag), .varint(4, let flag), .varint(7, let flag):  // created, canceled, fragment
                if flag != 0 { return nil }
            case .varint(5, let compacted):  // compact_revision
                if compacted != 0 { return nil }
            case .lengthDelimited(11, var event):  // events
                guard let revision = try modRevision(of: &event) else { return nil }
                newest = max(newest ?? revision, revision)
            default:
                break
            }
        }
        return newest
    }

    /// An `Event`'s `kv.mod_revision`.
    private static func modRevision(of event: inout ProtobufReader) throws(MalformedProtobuf) -> Int64? {
        var revision: Int64?
        while let field = try event.nextField() {
            guard case .lengthDelimited(2, var keyValue) = field else { continue }  // kv
            while let kvField = try keyValue.nextField() {
                if case .varint(3, let value) = kvField { revision = Int64(bitPattern: value) }  // mod_revision
            }
        }
        return revision
    }
}
