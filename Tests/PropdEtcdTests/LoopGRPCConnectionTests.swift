import EtcdAPI
import EtcdTestSupport
import Testing

@testable import PropdEtcd

extension EtcdClusterTests {
    /// The connection the store's writer sends its transactions on, called
    /// directly: no other member or route to fall back on.
    @Suite struct LoopGRPCConnectionTests {
        @Test func aReplyLargerThanTheFlowControlWindowsArrivesWhole() async throws {
            try await withCluster { cluster, etcd in
                let value = [UInt8](repeating: 0x62, count: 1_000_000)
                for i in 0..<3 { _ = try await etcd.put("/big/\(i)".bytes, value + [UInt8(i)]) }
                let connection = LoopGRPCConnection(
                    try EtcdEndpoint(cluster.clientURLs[0]), requestTimeout: .seconds(60), loop: etcd.transactionLoop)
                defer { connection.shutdown() }
                var request = Etcdserverpb_TxnRequest()
                request.success = [EtcdOperation.range(.prefix("/big/".bytes)).message]
                // About 3 MB: the stream's window (1 MiB) and the connection's
                // (64 KiB) are given back as the reply is read, twice over.
                for _ in 0..<2 {
                    let reply = try await connection.call(
                        "/etcdserverpb.KV/Txn", request, metadata: [], as: Etcdserverpb_TxnResponse.self
                    ).get()
                    let values = reply.responses.first?.responseRange.kvs.map(\.value) ?? []
                    #expect(values.map(\.count) == [1_000_001, 1_000_001, 1_000_001])
                    #expect(values.map(\.last) == [0, 1, 2])
                }
            }
        }
    }
}
