import NIOCore

/// A transaction's request and reply in protobuf's wire format, written
/// from ``EtcdCompare`` and ``EtcdOperation`` and read into
/// ``EtcdTxnResult`` directly, for the route where every write request is
/// one: ``EtcdClient/txnFuture(_:success:failure:)``.
///
/// The generated messages (`Etcdserverpb_TxnRequest`, …) copy every key
/// and value into `Data` and build a message value per compare and
/// operation; this writes the same bytes in one pass (`TxnWireTests` checks
/// them against swift-protobuf's, field for field, and the decoding against
/// the generated one). Field numbers and enum values are those of etcd's
/// `rpc.proto` and `kv.proto`; the generated code stays the reference and
/// the route of every other call.
enum TxnWire {
    // MARK: The request

    /// `TxnRequest { repeated Compare compare = 1; repeated RequestOp success = 2; repeated RequestOp failure = 3; }`
    static func request(_ compares: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]) -> [UInt8] {
        var out = ProtobufWriter()
        for compare in compares { out.message(field: 1) { compare.write(into: &$0) } }
        for operation in success { out.message(field: 2) { operation.write(into: &$0) } }
        for operation in failure { out.message(field: 3) { operation.write(into: &$0) } }
        return out.bytes
    }

    // MARK: The reply

    /// `TxnResponse { ResponseHeader header = 1; bool succeeded = 2; repeated ResponseOp responses = 3; }`
    static func result(_ reply: ByteBuffer) throws(MalformedProtobuf) -> EtcdTxnResult {
        var reader = ProtobufReader(reply)
        var result = EtcdTxnResult(succeeded: false, revision: 0, results: [])
        while let field = try reader.nextField() {
            switch field {
            case .lengthDelimited(1, var header): result.revision = try header.revisionOfHeader()
            case .varint(2, let value): result.succeeded = value != 0
            case .lengthDelimited(3, var op): if let one = try op.responseOp() { result.results.append(one) }
            default: break
            }
        }
        return result
    }
}

extension EtcdCompare {
    /// `Compare { CompareResult result = 1; CompareTarget target = 2; bytes key = 3;
    /// oneof { int64 version = 4; int64 create_revision = 5; int64 mod_revision = 6; bytes value = 7; }
    /// bytes range_end = 64; }`
    fileprivate func write(into out: inout ProtobufWriter) {
        let result: UInt64 =
            switch relation {
            case .equal: 0
            case .greater: 1
            case .less: 2
            case .notEqual: 3
            }
        out.varint(field: 1, result)
        // CompareTarget VERSION, CREATE, MOD, VALUE, and the oneof member each compares.
        let (kind, field): (UInt64, Int) =
            switch target {
            case .version: (0, 4)
            case .createRevision: (1, 5)
            case .modRevision: (2, 6)
            case .value: (3, 7)
            }
        out.varint(field: 2, kind)
        out.bytes(field: 3, keys.key)
        switch target {
        case .version(let number), .createRevision(let number), .modRevision(let number):
            out.int64(field: field, number, always: true)
        case .value(let value):
            out.bytes(field: field, value, always: true)
        }
        out.bytes(field: 64, keys.rangeEnd)
    }
}

extension EtcdOperation {
    /// `RequestOp { oneof { RangeRequest request_range = 1; PutRequest request_put = 2;
    /// DeleteRangeRequest request_delete_range = 3; } }`
    fileprivate func write(into out: inout ProtobufWriter) {
        switch self {
        case .range(let keys):
            // RangeRequest { bytes key = 1; bytes range_end = 2; }
            out.message(field: 1) { range in
                range.bytes(field: 1, keys.key)
                range.bytes(field: 2, keys.rangeEnd)
            }
        case .newest(let keys):
            // … int64 limit = 3; SortOrder sort_order = 5 (DESCEND); SortTarget sort_target = 6 (MOD); bool keys_only = 8;
            out.message(field: 1) { range in
                range.bytes(field: 1, keys.key)
                range.bytes(field: 2, keys.rangeEnd)
                range.varint(field: 3, 1)
                range.varint(field: 5, 2)
                range.varint(field: 6, 3)
                range.varint(field: 8, 1)
            }
        case .put(let key, let value, let lease):
            // PutRequest { bytes key = 1; bytes value = 2; int64 lease = 3; }
            out.message(field: 2) { put in
                put.bytes(field: 1, key)
                put.bytes(field: 2, value)
                put.int64(field: 3, lease)
            }
        case .delete(let keys):
            // DeleteRangeRequest { bytes key = 1; bytes range_end = 2; }
            out.message(field: 3) { delete in
                delete.bytes(field: 1, keys.key)
                delete.bytes(field: 2, keys.rangeEnd)
            }
        }
    }
}

extension ProtobufReader {
    /// `ResponseHeader { uint64 cluster_id = 1; uint64 member_id = 2; int64 revision = 3; uint64 raft_term = 4; }`
    fileprivate mutating func revisionOfHeader() throws(MalformedProtobuf) -> Int64 {
        var revision: Int64 = 0
        while let field = try nextField() {
            if case .varint(3, let value) = field { revision = Int64(bitPattern: value) }
        }
        return revision
    }

    /// `ResponseOp { oneof { RangeResponse response_range = 1; PutResponse response_put = 2;
    /// DeleteRangeResponse response_delete_range = 3; TxnResponse response_txn = 4; } }`
    /// (a nested transaction's answer is left out, as ``EtcdTxnResult`` does).
    fileprivate mutating func responseOp() throws(MalformedProtobuf) -> EtcdTxnResult.OperationResult? {
        var answer: EtcdTxnResult.OperationResult?
        while let field = try nextField() {
            switch field {
            case .lengthDelimited(1, var range):
                // RangeResponse { ResponseHeader header = 1; repeated KeyValue kvs = 2; bool more = 3; int64 count = 4; }
                var read = EtcdRangeResult(keyValues: [], count: 0, more: false, revision: 0)
                while let field = try range.nextField() {
                    switch field {
                    case .lengthDelimited(1, var header): read.revision = try header.revisionOfHeader()
                    case .lengthDelimited(2, var kv): read.keyValues.append(try kv.keyValue())
                    case .varint(3, let more): read.more = more != 0
                    case .varint(4, let count): read.count = Int64(bitPattern: count)
                    default: break
                    }
                }
                answer = .range(read)
            case .lengthDelimited(2, var put):
                // PutResponse { ResponseHeader header = 1; KeyValue prev_kv = 2; }
                var written = EtcdPutResult(revision: 0, previous: nil)
                while let field = try put.nextField() {
                    switch field {
                    case .lengthDelimited(1, var header): written.revision = try header.revisionOfHeader()
                    case .lengthDelimited(2, var kv): written.previous = try kv.keyValue()
                    default: break
                    }
                }
                answer = .put(written)
            case .lengthDelimited(3, var delete):
                // DeleteRangeResponse { ResponseHeader header = 1; int64 deleted = 2; repeated KeyValue prev_kvs = 3; }
                var removed = EtcdDeleteResult(revision: 0, deleted: 0, previous: [])
                while let field = try delete.nextField() {
                    switch field {
                    case .lengthDelimited(1, var header): removed.revision = try header.revisionOfHeader()
                    case .varint(2, let deleted): removed.deleted = Int64(bitPattern: deleted)
                    case .lengthDelimited(3, var kv): removed.previous.append(try kv.keyValue())
                    default: break
                    }
                }
                answer = .delete(removed)
            case .lengthDelimited(4, _):
                answer = nil
            default:
                break
            }
        }
        return answer
    }

    /// `KeyValue { bytes key = 1; int64 create_revision = 2; int64 mod_revision = 3; int64 version = 4;
    /// bytes value = 5; int64 lease = 6; }`
    fileprivate mutating func keyValue() throws(MalformedProtobuf) -> EtcdKeyValue {
        var kv = EtcdKeyValue(key: [], value: [])
        while let field = try nextField() {
            switch field {
            case .lengthDelimited(1, let key): kv.key = key.remainingBytes
            case .varint(2, let value): kv.createRevision = Int64(bitPattern: value)
            case .varint(3, let value): kv.modRevision = Int64(bitPattern: value)
            case .varint(4, let value): kv.version = Int64(bitPattern: value)
            case .lengthDelimited(5, let value): kv.value = value.remainingBytes
            case .varint(6, let value): kv.lease = Int64(bitPattern: value)
            default: break
            }
        }
        return kv
    }
}
