import EtcdTestSupport
import Foundation
import PropdCluster
import PropdCore
import PropdStore
import Synchronization
import Testing

/// A request that read a whole table (a pattern) is guarded by its key
/// range and `head`: a write another node made under it after the request's
/// body read the space fails the transaction, and the body runs again on the
/// newer space. The other writer here is a separate process writing through
/// etcd's gateway from inside the body, so the race is certain.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct WholeReadGuardTests {
    private let prefix = "/propd/test/"

    @Test func aPatternDeleteRunsAgainWhenAnotherWriterAddsAMatchingKey() async throws {
        try await withNodes(1) { cluster, nodes in
            let node = nodes[0]
            try await node.set(["room.1": 1, "room.2": 2, "hall.1": 1])
            let (url, key) = (cluster.clientURLs[0], base64(prefix + "p/room.3"))
            let runs = Atomic(0)
            let committed = try await node.write { transaction in
                let keys = try transaction.keys(matching: KeyPattern("room.*"))
                if runs.add(1, ordering: .relaxed).newValue == 1 {
                    _ = try EtcdCluster.gateway(url, "/v3/kv/put", ["key": key, "value": base64(#"{"v":3}"#)])
                }
                for key in keys { try transaction.delete(key) }
            }
            #expect(runs.load(ordering: .relaxed) == 2, "the first run missed room.3")
            await node.wait(for: committed.revision)
            #expect(try node.list(pattern: KeyPattern("room.*"), limit: nil).properties.isEmpty)
            #expect(try node.value("hall.1") == 1)
            #expect(Set(committed.changeSet.changes) == [.delete(try Key("room.1")), .delete(try Key("room.2")), .delete(try Key("room.3"))])
        }
    }

    @Test func aCountOverAPatternRunsAgainWhenAnotherWriterDeletesAMatchingKey() async throws {
        try await withNodes(1) { cluster, nodes in
            let node = nodes[0]
            try await node.set(["room.1": 1, "room.2": 2])
            let url = cluster.clientURLs[0]
            let runs = Atomic(0)
            let committed = try await node.write { transaction in
                let keys = try transaction.keys(matching: KeyPattern("room.*"))
                if runs.add(1, ordering: .relaxed).newValue == 1 {
                    // As a node deletes: the row goes, and `head` is put
                    // (a delete leaves no key for a range to compare).
                    _ = try EtcdCluster.gateway(url, "/v3/kv/txn", [
                        "success": [
                            ["request_delete_range": ["key": base64(self.prefix + "p/room.2")]],
                            ["request_put": ["key": base64(self.prefix + "head"), "value": base64("other-1")]],
                        ]
                    ])
                }
                try transaction.set(Key("rooms"), .integer(Int64(keys.count)))
            }
            #expect(runs.load(ordering: .relaxed) == 2, "the first run counted room.2")
            await node.wait(for: committed.revision)
            #expect(try node.value("rooms") == 1)
        }
    }

    @Test func aSetCarriesItsTransactionInItsRowAndADeletePutsHead() async throws {
        try await withNodes(1) { cluster, nodes in
            let node = nodes[0]
            let url = cluster.clientURLs[0]
            try await node.set(["lamp": true])
            #expect(try Self.range(url, prefix + "head") == nil, "a Set puts no head")
            let row = try #require(try Self.range(url, prefix + "p/lamp"))
            #expect(row.contains(#""t":""#), "the row carries the transaction's id: \(row)")

            _ = try await node.write { transaction in try transaction.delete(Key("lamp")) }
            let head = try #require(try Self.range(url, prefix + "head"), "a Delete puts head")
            #expect(head.contains("-"))
        }
    }

    /// The value of `key`, as text, or nil when etcd has no such key.
    private static func range(_ url: String, _ key: String) throws -> String? {
        let answer = try EtcdCluster.gateway(url, "/v3/kv/range", ["key": base64(key)])
        guard let kvs = answer["kvs"] as? [[String: Any]], let value = kvs.first?["value"] as? String,
            let bytes = Data(base64Encoded: value)
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
