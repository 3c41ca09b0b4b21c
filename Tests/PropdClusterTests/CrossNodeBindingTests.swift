import EtcdTestSupport
import Logging
import PropdCluster
import PropdCore
import PropdService
import Testing

/// A binding declared on one node applies to a write of its source on
/// another node at once, even when that node has not heard of the binding
/// yet: every request compares the space's `bindings` mark, so a write
/// computed without the new binding fails its compares and runs again with
/// it — never committed without its derived value.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct CrossNodeBindingTests {
    @Test func aSourceWrittenOnAnotherNodeRightAfterTheBindCommitsItsDerivedValue() async throws {
        try await withNodes(2, prefix: "/propd/crossbind") { _, nodes in
            let services = try nodes.map { try PropertyService(store: $0, logger: Logger(label: "crossbind")) }
            defer { for service in services { service.shutdown() } }
            for (node, service) in zip(nodes, services) {
                node.onForeignEngineChange { service.spaceChangedElsewhere() }
            }
            // Each round binds a new key on node A and, without waiting for
            // node B to hear of it, writes its source on B: the race the
            // mark closes is lost by B in most rounds.
            for round in 0..<20 {
                let derived = try Key("x.double\(round)")
                let source = try Key("x.in\(round)")
                _ = try await services[0].bind(derived, expression: "\(source).map { v in v * 2 }")
                let revision = try await services[1].set([source: .integer(Int64(round))])
                let reader = services[1]
                let history = try await offThePool { try reader.history(of: derived, limit: nil, before: nil) }
                #expect(history.first?.revision == revision, "round \(round): derived in the source's revision")
                #expect(history.first?.value == .integer(Int64(2 * round)), "round \(round)")
            }
        }
    }
}
