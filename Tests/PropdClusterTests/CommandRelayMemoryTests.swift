import EtcdTestSupport
import Logging
import PropdCluster
import PropdCore
import PropdEtcd
import PropdService
import PropdTestSupport
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
                // No node dies here: a lease long enough that a loaded
                // machine's late keep-alive does not end B's announcement.
                let relays = services.map { _ in
                    EtcdCommandRelay(etcd: etcd, prefix: prefix, leaseSeconds: 30, logger: Logger(label: "relay"))
                }
                var runs: [Task<Void, Never>] = []
                for (relay, service) in zip(relays, services) {
                    service.attach(relay)
                    runs.append(Task { await relay.run(for: service) })
                }
                defer { for run in runs { run.cancel() } }

                // Node B's handler takes every invocation and never answers.
                // A command runs one execution at a time: the burst below
                // takes one command each.
                let rounds = 20
                let keys = try CommandKeys(Key("door.open"))
                let burst = try (0..<rounds).map { try CommandKeys(Key("door.open\($0)")) }
                let delivered = Counter()
                _ = services[1].serve([keys] + burst, deliver: { _ in delivered.increment() }) { error in
                    Issue.record("B's commands were not registered: \(error)")
                }
                // B serves them once their registration is committed (their
                // `executing` set to false, in one revision): a registration
                // that failed later would take B's handler away in the middle
                // of the burst.
                let lastExecuting = try #require(burst.last).executing
                let registration = try await services[1].subscribe(
                    SubscriptionRequest(patterns: [KeyPattern(lastExecuting.rawValue)]))
                _ = try await EventCollector(registration).take("B's commands registered", timeout: .seconds(60)) { events in
                    events.contains { $0.key == lastExecuting.rawValue && $0.value == .bool(false) }
                }
                registration.cancel()
                // A learns of B's handlers through its watch: until then an
                // execution is `noHandler`. Asked of A's relay itself: an
                // execution's timeout proves nothing, as under load it can
                // end the execution before A has looked for a handler.
                let commands = ([keys] + burst).map(\.command)
                let relayA = relays[0]
                let learnsBsHandlers: @Sendable () async -> Bool = {
                    let learned = try? await withDeadline(.seconds(60), waitingFor: "A's relay to learn B's handlers") {
                        for await _ in relayA.servingChanges() where commands.allSatisfy({ relayA.serves($0) }) {
                            return true
                        }
                        return false
                    }
                    return learned == true
                }
                guard await learnsBsHandlers() else {
                    Issue.record("A's relay never learned of B's handlers")
                    return
                }
                // Then many at once, each with time for B's watch to bring it
                // before it times out on A (a 50 ms one may end, and its
                // invocation go, before B ever sees it): B gets every one, and
                // A forgets every one when it times out.
                let outcomes = await withTaskGroup(of: Bool.self) { group in
                    for command in burst {
                        group.addTask {
                            do throws(CommandError) {
                                _ = try await services[0].execute(command, argument: nil, timeout: .seconds(3))
                                return false
                            } catch {
                                if case .timeout = error { return true } else { return false }
                            }
                        }
                    }
                    return await group.reduce(into: 0) { count, timedOut in if timedOut { count += 1 } }
                }
                #expect(outcomes == rounds, "every execution ended by its timeout")
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
                    // The relay's path is what is tested, so A must know B's
                    // handler: should B's lease lapse all the same, A has
                    // none until B's relay announces them again in a new term.
                    guard await learnsBsHandlers() else {
                        Issue.record("A's relay did not learn of B's handlers again")
                        return
                    }
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
