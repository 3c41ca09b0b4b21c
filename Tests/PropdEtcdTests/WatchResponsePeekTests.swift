import EtcdAPI
import Foundation
import NIOCore
import SwiftProtobuf
import Testing

@testable import PropdEtcd

/// The peek names a plain batch of events by its newest event's revision
/// and leaves every other message, and every malformed one, to the decoder.
@Suite struct WatchResponsePeekTests {
    func peek(_ response: Etcdserverpb_WatchResponse) throws -> Int64? {
        WatchResponsePeek.newestEventRevision(ByteBuffer(bytes: try response.serializedBytes() as [UInt8]))
    }

    func events(at revision: Int64, _ change: (inout Etcdserverpb_WatchResponse) -> Void = { _ in }) -> Etcdserverpb_WatchResponse {
        var response = Etcdserverpb_WatchResponse()
        response.header.clusterID = 0xFFFF_FFFF_FFFF_FFFF
        response.header.revision = revision
        response.header.raftTerm = 7
        response.watchID = 3
        response.events = [
            .with { $0.kv = .with { $0.key = Data("/p/a".utf8); $0.value = Data("1".utf8); $0.modRevision = revision - 1 } },
            .with { $0.type = .delete; $0.kv = .with { $0.key = Data("/p/b".utf8); $0.modRevision = revision } },
        ]
        change(&response)
        return response
    }

    @Test func aBatchOfEventsIsNamedByItsNewestEvent() throws {
        #expect(try peek(events(at: 42)) == 42)
        #expect(try peek(events(at: 1 << 40)) == 1 << 40)
        #expect(try peek(events(at: 42) { $0.watchID = 0 }) == 42, "the first watch of a stream has ID 0")
        #expect(try peek(events(at: 42) { $0.events.reverse() }) == 42, "the newest, wherever it is")
        #expect(try peek(events(at: 42) { $0.header.revision = 50 }) == 42, "not the header's revision")
        #expect(try peek(events(at: 42) { $0.events[0].prevKv = .with { $0.modRevision = 45 } }) == 42, "not a previous value's")
    }

    @Test func everyOtherMessageIsLeftToTheDecoder() throws {
        #expect(try peek(events(at: 42) { $0.created = true }) == nil)
        #expect(try peek(events(at: 42) { $0.canceled = true; $0.cancelReason = "etcdserver: no leader" }) == nil)
        #expect(try peek(events(at: 42) { $0.compactRevision = 40 }) == nil)
        #expect(try peek(events(at: 42) { $0.fragment = true }) == nil)
        #expect(try peek(events(at: 42) { $0.watchID = -1 }) == nil, "the answer to a progress request")
        #expect(try peek(events(at: 42) { $0.events = [] }) == nil, "a progress notification")
        #expect(try peek(events(at: 42) { $0.events[1].clearKv() }) == nil, "an event without its key")
        #expect(try peek(events(at: 42) { $0.events[1].kv.modRevision = 0 }) == nil, "an event without its revision")
    }

    @Test func aMalformedMessageIsLeftToTheDecoder() throws {
        let whole: [UInt8] = try events(at: 42).serializedBytes()
        for length in 1..<whole.count {
            let cut = WatchResponsePeek.newestEventRevision(ByteBuffer(bytes: whole.prefix(length)))
            // A cut that ends on a field's boundary is a valid message of
            // its own; any other is refused.
            let decodes = (try? Etcdserverpb_WatchResponse(serializedBytes: Array(whole.prefix(length)))) != nil
            if !decodes { #expect(cut == nil, "cut at \(length) of \(whole.count)") }
        }
        #expect(WatchResponsePeek.newestEventRevision(ByteBuffer(bytes: [0x0B, 0x00])) == nil, "a group: no wire type it reads")
        #expect(WatchResponsePeek.newestEventRevision(ByteBuffer(bytes: [UInt8](repeating: 0xFF, count: 11))) == nil, "a varint past 64 bits")
    }
}
