import EtcdTestSupport
import PropdCluster
import PropdCore
import PropdEtcd
import PropdStore
import Synchronization
import Testing

/// A write whose transaction etcd applied but whose reply never came (the
/// connection lost after the request went out) is looked up by the
/// transaction's id, which its first property row carries: found, it is
/// acknowledged at its revision, once.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct LostReplyTests {
    @Test func aWriteWhoseReplyWasLostIsFoundByItsRowAndAcknowledgedOnce() async throws {
        let cluster = try EtcdCluster(members: 1)
        let proxy = try LoopbackProxy(to: cluster.members[0].clientPort)
        defer { proxy.stop() }
        // Generous bounds: on a machine loaded by the whole suite, a slow
        // answer must not pass for the lost one under test.
        var configuration = EtcdClient.Configuration(endpoints: [try EtcdEndpoint(proxy.clientURL)])
        configuration.requestTimeout = .seconds(30)
        configuration.unavailableAfter = .seconds(30)
        let throughProxy = try EtcdClient(configuration)
        let direct = try EtcdClient(.init(endpoints: [EtcdEndpoint(cluster.clientURLs[0])]))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await throughProxy.run() }
            group.addTask { try await direct.run() }
            defer { group.cancelAll() }
            let node = try await EtcdPropertyStorage.open(etcd: throughProxy, prefix: "/propd/test")
            defer { node.close() }
            let before = try await node.set(["lost.before": 1])

            // etcd's events for the key, read past the proxy.
            let (applied, sink) = AsyncStream.makeStream(of: Int64.self)
            let watch = Task {
                try await direct.watch(.key(Array("/propd/test/p/lost.reply".utf8)), from: before.rawValue + 1) { update in
                    if case .events(let events) = update { for event in events { sink.yield(event.keyValue.modRevision) } }
                }
            }
            defer { watch.cancel() }

            proxy.holdReplies()
            let write = Task { try await node.set(["lost.reply": 42]) }
            let revision = try await withDeadline(.seconds(30), waitingFor: "etcd to apply the write") {
                for await revision in applied { return revision }
                throw DeadlinePassed(waitingFor: "the watch's event")
            }
            // The connection goes with the reply; the node connects again.
            proxy.cut()
            proxy.restore()

            let acknowledged = try await withDeadline(.seconds(120), waitingFor: "the write's outcome") { try await write.value }
            #expect(acknowledged.rawValue == revision, "acknowledged at the revision etcd gave it")
            await node.wait(for: acknowledged)
            #expect(try node.value("lost.reply") == 42)
            let history = try await node.fetchHistory(of: Key("lost.reply"), limit: nil, before: nil)
            #expect(history.count == 1, "applied once: \(history)")
        }
    }
}
