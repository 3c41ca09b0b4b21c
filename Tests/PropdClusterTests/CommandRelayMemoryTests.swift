import EtcdTestSupport
import Logging
import PropdCluster
import PropdCore
import PropdEtcd
import PropdService
import Testing

@testable import PropdServer

/// Executions relayed to another node whose handler never answers end by
/// their timeout on the executing node, and its relay forgets each then:
/// its memory is bounded by what is in flight, not by what ever timed out.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct CommandRelayMemoryTests {
    @Test func timedOutExecutionsNeverAnsweredAreForgotten() async throws {
        let prefix = "/propd/relay"
        try await withNodes(2, prefix: prefix) { cluster, nodes in
            let services = try nodes.map { try PropertyService(store: $0, logger: Logger(label: "relay")) }
            defer { for service in services { service.shutdown() } }
            for (node, service) in zip(nodes, services) {
                node.onForeignEngineChange { service.spaceChangedElsewhere() }
            }
            let configuration = EtcdClient.Configuration(endpoints: try cluster.clientURLs.map { try EtcdEndpoint($0) })
            try await withEtcdClient(configuration) { etcd in
                let relays = services.map { _ in
                    EtcdCommandRelay(etcd: etcd, prefix: prefix, leaseSeconds: 5, logger: Logger(label: "relay"))
                }
                var runs: [Task<Void, Never>] = []
                for (relay, service) in zip(relays, services) {
                    service.attach(relay)
                    runs.append(Task { await relay.run(for: service) })
                }
                defer { for run in runs { run.cancel() } }

                // Node B's handler takes every invocation and never answers.
                let keys = try CommandKeys(Key("door.open"))
                let delivered = Counter()
                _ = services[1].serve([keys], deliver: { _ in delivered.increment() }, failed: { _ in })
                let rounds = 20
                var timedOut = 0
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(60)
                while timedOut < rounds {
                    do throws(CommandError) {
                        _ = try await services[0].execute(keys, argument: nil, timeout: .milliseconds(50))
                        Issue.record("an execution nobody answers was answered")
                        return
                    } catch .timeout {
                        timedOut += 1
                    } catch {
                        guard case .noHandler = error, clock.now < deadline else { throw error }
                        // A does not know B's handler yet: polling pace.
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
                // B hears of each invocation through its watch, which may come
                // after A's 50 ms timeout: wait for the last, bounded.
                #expect(await delivered.reaches(rounds, within: .seconds(30)), "B's handler got them")
                #expect(relays[0].executionsInFlight == 0)

                // A timeout that comes at once, before the relay could send
                // the execution (an injected timer firing as it is armed):
                // the relay never keeps it either.
                let firesAtOnce: CommandTimer = { _, fire in
                    fire()
                    return {}
                }
                for _ in 0..<5 {
                    let ended = await withCheckedContinuation { continuation in
                        services[0].execute(keys, argument: nil, timeout: .milliseconds(1), timer: firesAtOnce) {
                            continuation.resume(returning: $0)
                        }
                    }
                    guard case .failure(.timeout) = ended else {
                        Issue.record("expected a timeout, got \(ended)")
                        return
                    }
                }
                #expect(relays[0].executionsInFlight == 0)
            }
        }
    }
}
