import EtcdTestSupport
import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// A Jepsen-style check: clients on three propd nodes compare-and-set two
/// keys that a binding sums, recording what they were told, while etcd
/// members and propd nodes are SIGKILLed and restarted in rounds. Then the
/// history, read from the nodes, must explain every acknowledgement.
///
/// The seed (`PROPD_FAULT_SEED` to replay another) draws the order and
/// targets of the faults and how long each lasts.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterFaultCheckTests {
    static let sources = ["jep.a", "jep.b"]
    static let derived = "jep.sum"
    static let expression = "combineLatest(jep.a, jep.b).map { x, y in x + y }"
    /// What `expression` computes, written again in Swift for the check.
    static let sum: @Sendable (JSONValue, JSONValue) -> JSONValue? = { x, y in
        guard case .integer(let x) = x, case .integer(let y) = y else { return nil }
        return .integer(x + y)
    }
    /// Clients by (node, key): every node has a writer, every key two, on different nodes.
    static let clients = [(0, "jep.a"), (1, "jep.b"), (2, "jep.a"), (0, "jep.b")]

    @Test func everyAcknowledgedCompareAndSetSurvivesKilledMembersAndNodes() async throws {
        let seed = ProcessInfo.processInfo.environment["PROPD_FAULT_SEED"].flatMap { UInt64($0) } ?? 20_261_124
        var random = SplitMix(seed: seed)
        let rounds = Fault.rounds(extra: 1, members: 3, nodes: 3, using: &random)
        let holds = rounds.map { _ in Duration.milliseconds(Int.random(in: 100...800, using: &random)) }
        print("cluster fault check: seed \(seed) (PROPD_FAULT_SEED replays another); rounds: \(rounds)")
        let started = ContinuousClock.now

        let targets = try await FaultTargets.start(nodes: 3, prefix: "/propd/faults")
        let setupClient = try await PropdClient.connect(to: targets.socketPaths[0])
        let setup = try await setupClient.set(["jep.a": 0, "jep.b": 0])
        let bound = try await setupClient.bind(Self.derived, Self.expression).revision
        await setupClient.close()

        let ledger = WriteLedger()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (id, (node, key)) in Self.clients.enumerated() {
                    let writer = CompareAndSetWriter(id: id, node: node, key: key, socketPath: targets.socketPaths[node])
                    group.addTask { await writer.run(recordingIn: ledger) }
                }
                defer { group.cancelAll() }
                for (fault, hold) in zip(rounds, holds) {
                    try await play(fault, holding: hold, on: targets, ledger: ledger)
                }
                await ledger.stop()
                try await group.waitForAll()
            }
        } catch {
            Issue.record("the fault rounds failed: \(error)\n\(try await targets.logs())")
            return
        }
        let attempts = await ledger.attempts

        // Read the space back from a node never killed, and from another.
        let killed = Set(rounds.compactMap(\.killedNode))
        let checking = (0..<3).first { !killed.contains($0) } ?? 0
        let other = (checking + 1) % 3
        var histories: [[String: [Event]]] = []
        var checkingClient: PropdClient?
        for node in [checking, other] {
            let client = try await PropdClient.connect(to: targets.socketPaths[node])
            // The node's own write: its mirror has every revision before it.
            try await client.set(["jep.end": .integer(Int64(node))])
            var byKey: [String: [Event]] = [:]
            for key in Self.sources + [Self.derived] { byKey[key] = try await client.history(key) }
            histories.append(byKey)
            if node == checking { checkingClient = client } else { await client.close() }
        }
        let client = try #require(checkingClient)
        var snapshots: [Revision: [Property]] = [:]
        let changed = Set(histories[0].values.flatMap { $0.map(\.revision) }).filter { $0 >= bound }
        for revision in [bound] + changed.sorted().shuffled(using: &random).prefix(24) {
            snapshots[revision] = try await client.get(Self.sources + [Self.derived], revision: revision)
        }
        await client.close()

        let check = ClusterHistoryCheck(
            sources: Self.sources, setupRevision: setup, derived: Self.derived, bindRevision: bound, binding: Self.sum,
            attempts: attempts, histories: histories[0], otherHistories: histories[1], snapshots: snapshots)
        let violations = check.violations()
        #expect(violations.isEmpty, "seed \(seed):\n\(violations.prefix(20).joined(separator: "\n"))")

        let summary = OutcomeSummary(attempts: attempts, sourceHistories: Self.sources.compactMap { histories[0][$0] })
        print("cluster fault check: seed \(seed), \(summary), \(ContinuousClock.now - started)")
        // The run exercised what it claims to: acknowledgements, refusals,
        // Unavailable without a quorum, and only the failures that may happen.
        #expect(summary.acknowledged >= 50)
        #expect(summary.refused > 0)
        #expect(summary.unavailable > 0)
        #expect(summary.unexpected.isEmpty, "\(summary.unexpected.prefix(5))")

        // The check can fail: an acknowledgement the history lacks, a ledger
        // missing an acknowledgement, one that says a write applied was
        // refused, or a binding other than the declared one are each caught.
        var invented = check
        invented.attempts.append(
            Attempt(client: 9, node: 0, key: "jep.a", value: 9_000_001, expected: setup, outcome: .acknowledged(bound)))
        #expect(!invented.violations().isEmpty)
        if let index = attempts.lastIndex(where: { if case .acknowledged = $0.outcome { true } else { false } }) {
            var dropped = check
            dropped.attempts.remove(at: index)
            #expect(!dropped.violations().isEmpty)
            var refused = check
            refused.attempts[index].outcome = .refused("RevisionMismatch")
            #expect(!refused.violations().isEmpty)
        }
        var wrongBinding = check
        wrongBinding.binding = { x, y in Self.sum(x, y).flatMap { Self.sum($0, 1) } }
        #expect(!wrongBinding.violations().isEmpty)
    }

    /// One round: inject `fault`, wait until the clients felt it, let it
    /// last `hold` more, heal it, and wait until every node acknowledges
    /// writes again.
    private func play(_ fault: Fault, holding hold: Duration, on targets: FaultTargets, ledger: WriteLedger) async throws {
        try await targets.inject(fault)
        let injected = await ledger.tally
        switch fault {
        case .etcdQuorum:
            try await until("a write answered Unavailable after \(fault)", ledger) { $0.unavailable > injected.unavailable }
        case .etcdMember, .propdNode, .etcdMemberAndPropdNode:
            try await until("five more writes acknowledged after \(fault)", ledger) { $0.acknowledged >= injected.acknowledged + 5 }
        }
        try await Task.sleep(for: hold)  // the fault's own length, drawn from the seed
        try await targets.heal(fault)
        let healed = await ledger.tally
        try await until("a write acknowledged on every node after healing \(fault)", ledger) { tally in
            (0..<3).allSatisfy { tally.acknowledgedOn[$0, default: 0] > healed.acknowledgedOn[$0, default: 0] }
        }
    }

    /// Waits until the ledger's tally satisfies `condition`, woken by each
    /// attempt it records, for at most `timeout`.
    private func until(
        _ what: String, _ ledger: WriteLedger, timeout: Duration = .seconds(60),
        _ condition: @escaping @Sendable (WriteLedger.Tally) -> Bool
    ) async throws {
        try await withDeadline(timeout, waitingFor: what) { await ledger.waitUntil(condition) }
    }
}

/// The counts a run prints and asserts on.
struct OutcomeSummary: CustomStringConvertible {
    var acknowledged = 0
    var refused = 0
    var unavailable = 0
    var lostWithTheNode = 0
    /// Indeterminate attempts found in the history (they may or may not apply).
    var indeterminateApplied = 0
    var unexpected: [String] = []

    init(attempts: [Attempt], sourceHistories: [[Event]]) {
        let applied = Set(sourceHistories.joined().compactMap { event -> Int64? in
            if case .integer(let value)? = event.value { value } else { nil }
        })
        for attempt in attempts {
            switch attempt.outcome {
            case .acknowledged: acknowledged += 1
            case .refused: refused += 1
            case .indeterminate(let reason):
                if reason.hasPrefix("Unavailable") {
                    unavailable += 1
                } else if reason == CompareAndSetWriter.connectionLost {
                    lostWithTheNode += 1
                } else {
                    unexpected.append(reason)
                }
                if applied.contains(attempt.value) { indeterminateApplied += 1 }
            }
        }
    }

    var description: String {
        "\(acknowledged) acknowledged, \(refused) refused, \(unavailable) Unavailable and "
            + "\(lostWithTheNode) lost with their node (\(indeterminateApplied) of these applied)"
    }
}
