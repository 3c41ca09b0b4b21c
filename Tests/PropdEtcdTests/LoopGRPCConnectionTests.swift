import EtcdAPI
import EtcdTestSupport
import Testing

@testable import PropdEtcd

extension EtcdClusterTests {
    /// The connection the store's writer sends its transactions and its
    /// watch on, called directly: no other member or route to fall back on.
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

        /// Two watch streams on one connection: cancelling one resets its
        /// stream alone; the other goes on, on the same connection.
        @Test func aCancelledStreamCallLeavesTheOthersOnItsConnection() async throws {
            try await withCluster { cluster, etcd in
                let connection = LoopGRPCConnection(
                    try EtcdEndpoint(cluster.clientURLs[0]), requestTimeout: .seconds(60), loop: etcd.transactionLoop)
                defer { connection.shutdown() }
                let start = try await etcd.put("/s/seed".bytes, "0".bytes).revision
                let (kept, keptEvents) = watch(on: connection, from: start + 1)
                let (cancelled, cancelledEvents) = watch(on: connection, from: start + 1)
                let first = try await put(on: connection, "/s/a")
                #expect(try await next(keptEvents) == [first])
                #expect(try await next(cancelledEvents) == [first])

                cancelled.cancel(with: CancellationError())
                await #expect(throws: CancellationError.self) { try await cancelled.ended.get() }
                let second = try await put(on: connection, "/s/b")
                #expect(try await next(keptEvents) == [second])
                // Still open: a closed connection would have ended it.
                kept.cancel(with: CancellationError())
                await #expect(throws: CancellationError.self) { try await kept.ended.get() }
            }
        }

        /// A watch of `/s/` from `revision`, its events' revisions per message.
        private func watch(on connection: LoopGRPCConnection, from revision: Int64) -> (LoopStreamCall, AsyncStream<[Int64]>) {
            let (events, sink) = AsyncStream.makeStream(of: [Int64].self)
            var create = Etcdserverpb_WatchCreateRequest()
            create.key = .init("/s/".bytes)
            create.rangeEnd = .init(EtcdKeyRange.prefix("/s/".bytes).rangeEnd)
            create.startRevision = revision
            let call = connection.stream(
                "/etcdserverpb.Watch/Watch", Etcdserverpb_WatchRequest.with { $0.createRequest = create }, metadata: []
            ) { message in
                let response = try Etcdserverpb_WatchResponse(serializedBytes: Array(message.readableBytesView))
                if !response.events.isEmpty { sink.yield(response.events.map(\.kv.modRevision)) }
            }
            return (call, events)
        }

        private func next(_ events: AsyncStream<[Int64]>) async throws -> [Int64]? {
            try await withDeadline(.seconds(30), waitingFor: "a watch message") {
                var iterator = events.makeAsyncIterator()
                return await iterator.next()
            }
        }

        private func put(on connection: LoopGRPCConnection, _ key: String) async throws -> Int64 {
            var request = Etcdserverpb_TxnRequest()
            request.success = [EtcdOperation.put(key: key.bytes, value: "v".bytes).message]
            return try await connection.call(
                "/etcdserverpb.KV/Txn", request, metadata: [], as: Etcdserverpb_TxnResponse.self
            ).get().header.revision
        }
    }
}
