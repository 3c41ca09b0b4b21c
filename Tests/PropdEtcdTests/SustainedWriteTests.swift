import PropdEtcd
import Testing

extension EtcdClusterTests {
    /// etcd sends a PING after nearly every request and swift-nio-http2 closes
    /// a connection that receives more than 200 in 30 seconds, which would fail
    /// a connection's 199th RPC; the client moves to a fresh connection every
    /// `EtcdMember.rpcsPerConnection` RPCs (see EtcdMember).
    @Suite struct SustainedWriteTests {
        @Test func oneClientCarriesFiveThousandSequentialPuts() async throws {
            try await withCluster { _, etcd in
                let first = try await etcd.put("/s/0".bytes, "0".bytes).revision
                var revisions: [Int64] = [first]
                for i in 1..<5_000 {
                    revisions.append(try await etcd.put("/s/\(i % 10)".bytes, "\(i)".bytes).revision)
                }
                // Every put applied exactly once, in order: none failed, none doubled.
                #expect(revisions == Array(first..<first + 5_000))
            }
        }

        @Test func concurrentPutsAndAnOpenWatchOutliveConnectionChanges() async throws {
            try await withCluster { _, etcd in
                let start = try await etcd.put("/c/start".bytes, "0".bytes).revision + 1
                // Sixteen writers draw fewer PINGs than one (etcd pings again
                // only once its last PING is answered), so this test is not
                // about the limit: it checks that retiring a connection every
                // 100 RPCs cuts neither the RPCs in flight on it nor a watch
                // opened on it before the puts.
                let watch = WatchRecorder(etcd, .prefix("/c/w/".bytes), from: start)
                let writers = 16
                let putsPerWriter = 100
                let revisions = try await withThrowingTaskGroup(of: [Int64].self) { group in
                    for writer in 0..<writers {
                        group.addTask {
                            var revisions: [Int64] = []
                            for i in 0..<putsPerWriter {
                                revisions.append(try await etcd.put("/c/w/\(writer)".bytes, "\(i)".bytes).revision)
                            }
                            return revisions
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(Set(revisions) == Set(start..<start + Int64(writers * putsPerWriter)))
                let events = try await watch.events(writers * putsPerWriter)
                #expect(events.map(\.keyValue.modRevision) == Array(start..<start + Int64(writers * putsPerWriter)))
            }
        }
    }
}
