import EtcdAPI
import Foundation
import NIOCore
import SwiftProtobuf
import Testing

@testable import PropdEtcd

/// The transaction's wire format written and read directly is swift-protobuf's, byte for byte.
struct TxnWireTests {
    struct Transaction: Sendable, CustomStringConvertible {
        var compares: [EtcdCompare]
        var success: [EtcdOperation]
        var failure: [EtcdOperation]
        var description: String { "\(compares.count) compares, \(success.count) + \(failure.count) operations" }
    }

    static let key = Array("/propd/p/room.temp".utf8)
    static let transactions: [Transaction] = [
        // A Set: its row and `bindings` compared, the row put, the newest writes read back on failure.
        Transaction(
            compares: [
                EtcdCompare(.key(key), .equal, .modRevision(41)),
                EtcdCompare(.key(Array("/propd/bindings".utf8)), .equal, .modRevision(0)),
            ],
            success: [.put(key: key, value: Array(#"{"t":"node-1","v":21.5}"#.utf8))],
            failure: [.newest(.key(key)), .newest(.key(Array("/propd/head".utf8)))]),
        // Every compare target and relation, a range compare, a long value (a length of two bytes).
        Transaction(
            compares: [
                EtcdCompare(.key(key), .notEqual, .version(0)),
                EtcdCompare(.key(key), .greater, .createRevision(7)),
                EtcdCompare(.prefix(Array("/propd/p/".utf8)), .less, .modRevision(1_000_000_000_000)),
                EtcdCompare(.key(key), .equal, .value([])),
                EtcdCompare(.key(key), .equal, .modRevision(-1)),
            ],
            success: [
                .put(key: key, value: Array(repeating: 0x78, count: 300), lease: 7_587_869_200_000_000_000),
                .delete(.prefix(Array("/propd/x/".utf8))),
                .range(.key(key)),
                .put(key: key, value: []),
            ],
            failure: [.range(.prefix(Array("/propd/".utf8)))]),
        Transaction(compares: [], success: [], failure: []),
    ]

    @Test(arguments: transactions)
    func theRequestIsSwiftProtobufsByteForByte(_ transaction: Transaction) throws {
        var request = Etcdserverpb_TxnRequest()
        request.compare = transaction.compares.map(\.message)
        request.success = transaction.success.map(\.message)
        request.failure = transaction.failure.map(\.message)
        let expected: [UInt8] = try request.serializedBytes()
        #expect(TxnWire.request(transaction.compares, success: transaction.success, failure: transaction.failure) == expected)
    }

    static func keyValue(_ name: String, value: String, mod: Int64) -> Mvccpb_KeyValue {
        var kv = Mvccpb_KeyValue()
        kv.key = Data(name.utf8)
        kv.value = Data(value.utf8)
        kv.createRevision = 3
        kv.modRevision = mod
        kv.version = 2
        kv.lease = 99
        return kv
    }

    static let responses: [Etcdserverpb_TxnResponse] = {
        var header = Etcdserverpb_ResponseHeader()
        header.clusterID = 0xdead_beef_0000_0001
        header.memberID = 12
        header.revision = 1_234_567
        header.raftTerm = 5

        var committed = Etcdserverpb_TxnResponse()
        committed.header = header
        committed.succeeded = true
        var put = Etcdserverpb_ResponseOp()
        put.responsePut = Etcdserverpb_PutResponse()
        put.responsePut.header = header
        put.responsePut.prevKv = keyValue("/p/a", value: "old", mod: 9)
        var delete = Etcdserverpb_ResponseOp()
        delete.responseDeleteRange = Etcdserverpb_DeleteRangeResponse()
        delete.responseDeleteRange.header = header
        delete.responseDeleteRange.deleted = 2
        delete.responseDeleteRange.prevKvs = [keyValue("/p/b", value: "", mod: 10), keyValue("/p/c", value: "x", mod: 11)]
        var nested = Etcdserverpb_ResponseOp()
        nested.responseTxn = Etcdserverpb_TxnResponse()
        nested.responseTxn.succeeded = true
        committed.responses = [put, delete, nested]

        var raced = Etcdserverpb_TxnResponse()
        raced.header = header
        var read = Etcdserverpb_ResponseOp()
        read.responseRange = Etcdserverpb_RangeResponse()
        read.responseRange.header = header
        read.responseRange.kvs = [keyValue("/head", value: String(repeating: "v", count: 200), mod: 1_234_560)]
        read.responseRange.more = true
        read.responseRange.count = 3
        var empty = Etcdserverpb_ResponseOp()
        empty.responseRange = Etcdserverpb_RangeResponse()
        raced.responses = [read, empty]
        return [committed, raced, Etcdserverpb_TxnResponse()]
    }()

    @Test(arguments: responses)
    func theReplyReadsAsSwiftProtobufDecodesIt(_ response: Etcdserverpb_TxnResponse) throws {
        let bytes: [UInt8] = try response.serializedBytes()
        #expect(try TxnWire.result(ByteBuffer(bytes: bytes)) == EtcdTxnResult(response))
    }

    @Test func aTruncatedOrMalformedReplyIsRefusedByName() throws {
        let bytes: [UInt8] = try Self.responses[0].serializedBytes()
        for length in [1, 2, bytes.count / 2, bytes.count - 1] {
            #expect(throws: MalformedProtobuf.self) { try TxnWire.result(ByteBuffer(bytes: bytes.prefix(length))) }
        }
        // Wire types 3 and 4 (groups) and 6 and 7 do not exist in proto3.
        for bad: [UInt8] in [[0x0b], [0x0e, 0x01], [0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], [0x00, 0x01]] {
            #expect(throws: MalformedProtobuf.self) { try TxnWire.result(ByteBuffer(bytes: bad)) }
        }
    }
}
