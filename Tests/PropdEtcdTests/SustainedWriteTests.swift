import PropdEtcd
import Testing

extension EtcdClusterTests {
    /// A known defect, kept visible: one connection fails its 199th put
    /// (swift-nio-http2 resets a connection after 200 stream errors over its
    /// life; see BENCHMARKS.md, "etcd"). When it is fixed this test reports
    /// that the known issue no longer occurs, and the wrapper goes.
    @Suite struct SustainedWriteTests {
        @Test func aConnectionCarriesMoreThanTwoHundredPuts() async throws {
            try await withCluster { _, etcd in
                await withKnownIssue("a grpc-swift connection to etcd fails its 199th put") {
                    for i in 0..<250 {
                        try await etcd.put("/s/\(i % 10)".bytes, "\(i)".bytes)
                    }
                }
            }
        }
    }
}
