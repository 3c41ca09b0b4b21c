import EtcdTestSupport
import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// Real propd processes in cluster mode on a real three-member etcd.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterNodeTests {
    @Test func aSetOnNodeAIsSeenBySubscribersOnNodeBInRevisionOrder() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/it")
        let (nodeA, nodeB, clientA, clientB) = (nodes.a, nodes.b, nodes.clientA, nodes.clientB)

        // B's mirror follows etcd a watch's delivery behind A's answer: B
        // has applied A's first write once a subscriber on B has its event.
        let applied = EventCollector(clientB.observe(["site.mode"], initial: false))
        _ = try await applied.synced()
        let first = try await clientA.set(["site.mode": "day"])
        _ = try await applied.take { events in events.contains { $0.revision == first } }
        let observer = EventCollector(clientB.observe(["site.*"]))
        let synced = try await observer.synced()
        // B's initial state, read after that, has A's first write.
        #expect(synced.first == Event(key: "site.mode", kind: .initial, value: "day", revision: first))

        var written: [Revision] = []
        for i in 0..<10 { written.append(try await clientA.set(["site.level": .integer(Int64(i)), "site.mode": "run"])) }
        let live = try await observer.take { events in events.filter { $0.kind == .set }.count == 20 }
            .filter { $0.kind == .set }
        #expect(live.map(\.revision) == written.flatMap { [$0, $0] })
        #expect(live.filter { $0.key == "site.level" }.map(\.value) == (0..<10).map { .integer(Int64($0)) })
        #expect(written == written.sorted())
        // And the other way: a write on B reaches a subscriber on A.
        let onA = EventCollector(clientA.observe(["site.mode"], initial: false))
        _ = try await onA.synced()
        let fromB = try await clientB.set(["site.mode": "night"])
        let seenOnA = try await onA.take { $0.contains { $0.kind == .set } }
        #expect(seenOnA.last == Event(key: "site.mode", kind: .set, value: "night", revision: fromB))
        // The space is in etcd: neither node made a database file.
        for node in [nodeA, nodeB] { #expect(!FileManager.default.fileExists(atPath: node.databasePath)) }
    }

    /// SIGTERM while writes are in flight: the node's writer finishes them
    /// before the etcd client's threads stop (the writer runs on one), the
    /// node exits 0 without complaint, and every write it acknowledged is
    /// in etcd.
    @Test func aNodeStoppedWithWritesInFlightFinishesThemAndExitsCleanly() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/stop")
        let writers = 4
        let started = AsyncStream.makeStream(of: Void.self)
        let socket = nodes.a.socketPath
        // Each writer's last acknowledged value.
        let writing = Task {
            await withTaskGroup(of: (Int, Int).self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        guard let client = try? await PropdClient.connect(to: socket) else { return (writer, 0) }
                        var last = 0
                        for value in 1...10_000 {
                            // Refused or cut off once the node stops: that write is not acknowledged.
                            guard (try? await client.set(["stop.w\(writer)": .integer(Int64(value))])) != nil else { break }
                            last = value
                            if value == 20 { started.continuation.yield() }
                        }
                        return (writer, last)
                    }
                }
                return await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
            }
        }
        var ready = started.stream.makeAsyncIterator()
        _ = await ready.next()
        #expect(nodes.a.stop() == 0, "\(nodes.a.log)")
        let last = await writing.value
        for complaint in ["Cannot schedule tasks", "leaked its continuation", "Fatal error"] {
            #expect(!nodes.a.log.contains(complaint), "\(nodes.a.log)")
        }
        // B's own write is answered once its mirror stands at its revision,
        // past every write A acknowledged.
        try await nodes.clientB.set(["stop.after": 1])
        let stored = try await nodes.clientB.get((0..<writers).map { "stop.w\($0)" })
        for writer in 0..<writers {
            let value = stored.first { $0.key.rawValue == "stop.w\(writer)" }?.value
            #expect(value.flatMap { if case .integer(let v) = $0 { Int(v) } else { nil } } ?? 0 >= last[writer] ?? 0)
        }
    }

    /// A binding declared on node A is applied by node B's writes: B's
    /// engine reads the bindings again after another node changed them, and
    /// the derived value commits with its cause, whichever node computed it.
    @Test func aBindingDeclaredOnNodeAIsAppliedByWritesOnNodeB() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/bind")
        let (clientA, clientB) = (nodes.clientA, nodes.clientB)

        try await clientA.set(["room.temp": 20])
        let observer = EventCollector(clientA.observe(["room.fahrenheit"], initial: false))
        _ = try await observer.synced()
        _ = try await clientA.bind("room.fahrenheit", "room.temp.map { $0 * 9 / 5 + 32 }")
        _ = try await observer.take { $0.contains { $0.kind == .set } }

        let written = try await clientB.set(["room.temp": 100])
        let events = try await observer.take { $0.contains { $0.kind == .set && $0.revision == written } }
        #expect(events.last == Event(key: "room.fahrenheit", kind: .set, value: 212, revision: written))
        // Node B refuses to write the derived key, as node A would.
        await #expect(throws: PropdClientError.self) { try await clientB.set(["room.fahrenheit": 1]) }
        let onB = try await clientB.get(["room.fahrenheit"])
        #expect(onB.first?.value == 212 && onB.first?.revision == written)
    }

    /// `History` and `since` on a node started after the writes: served
    /// from etcd's history through the node's synchronous handlers.
    @Test func historyAndSinceOnANewNodeComeFromEtcd() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/past")
        var written: [Revision] = []
        for i in 0..<5 { written.append(try await nodes.clientA.set(["past.k": .integer(Int64(i))])) }
        let nodeC = try PropdProcess(extraArguments: nodes.clusterArguments)
        let clientC = try await PropdClient.connect(to: nodeC.socketPath)
        let history = try await clientC.history("past.k")
        #expect(history.map(\.revision) == written.reversed())
        #expect(history.map(\.value) == (0..<5).reversed().map { .integer(Int64($0)) })
        let since = try await EventCollector(clientC.observe(["past.*"], since: written[1])).take { $0.last?.kind == .synced }
        #expect(since.filter { $0.kind == .set }.map(\.revision) == Array(written[2...]))
    }

    /// Subscriptions with `since` and `replay` start on the daemon's
    /// cooperative threads (two here) and read etcd's history: many at once
    /// on a node whose memory does not reach back all start, none blocks the
    /// pool the etcd reads need.
    @Test func manySubscriptionsFromEtcdsHistoryAtOnceAllStart() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/many")
        var written: [Revision] = []
        for i in 0..<4 { written.append(try await nodes.clientA.set(["many.k": .integer(Int64(i))])) }
        let nodeC = try PropdProcess(extraArguments: nodes.clusterArguments)
        let client = try await PropdClient.connect(to: nodeC.socketPath)
        let since = written[0]
        let backlogs = try await withThrowingTaskGroup(of: [Event].self) { group in
            for i in 0..<12 {
                group.addTask {
                    // Each observation is a connection of its own.
                    let events = i.isMultiple(of: 2)
                        ? client.observe(["many.*"], since: since) : client.observe(["many.*"], replay: 3)
                    return try await EventCollector(events).synced(timeout: .seconds(60))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for backlog in backlogs {
            #expect(backlog.map(\.revision) == Array(written.dropFirst()))
            #expect(backlog.map(\.value) == [1, 2, 3])
        }
    }

    /// A diamond's two sources written at once on two nodes: every revision
    /// has one derived value, and it is the binding applied to the sources
    /// at that revision (a request whose inputs changed meanwhile ran again).
    @Test func aDiamondWrittenOnTwoNodesAtOnceIsConsistentAtEveryRevision() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/diamond")
        try await nodes.clientA.set(["dia.x": 0, "dia.y": 0])
        try await nodes.clientA.bind("dia.pair", "combineLatest(dia.x, dia.y).map { x, y in [x, y] }")
        let observer = EventCollector(nodes.clientA.observe(["dia.**"], initial: false))
        _ = try await observer.synced()
        let rounds = 12
        let revisions = try await withThrowingTaskGroup(of: [Revision].self) { group in
            for (client, key) in [(nodes.clientA, "dia.x"), (nodes.clientB, "dia.y")] {
                group.addTask {
                    var revisions: [Revision] = []
                    for i in 1...rounds { revisions.append(try await client.set([key: .integer(Int64(i))])) }
                    return revisions
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(revisions).count == 2 * rounds)
        // A later revision on A's node: every event before it has arrived.
        let end = try await nodes.clientA.set(["dia.end": true])
        let events = try await observer.take { $0.contains { $0.revision == end } }.filter { $0.revision < end }
        var values: [String: JSONValue] = ["dia.x": 0, "dia.y": 0]
        for revision in Set(events.map(\.revision)).sorted() {
            let atRevision = events.filter { $0.revision == revision }
            for event in atRevision { values[event.key] = event.value }
            #expect(atRevision.filter { $0.key == "dia.pair" }.count == 1, "one derived value at \(revision)")
            #expect(values["dia.pair"] == .array([values["dia.x"] ?? .null, values["dia.y"] ?? .null]), "at \(revision)")
        }
        #expect(values["dia.pair"] == .array([.integer(Int64(rounds)), .integer(Int64(rounds))]))
    }

    /// Two of three etcd members killed: a Set is `io.propd.Unavailable`;
    /// another node's subscription stays open and, once etcd is back, goes
    /// on with nothing skipped and no acknowledged write lost.
    @Test func withoutQuorumASetIsUnavailableAndSubscriptionsResumeWithoutAGap() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/quorum")
        let observer = EventCollector(nodes.clientB.observe(["q.k"], initial: false))
        _ = try await observer.synced()
        let before = try await nodes.clientA.set(["q.k": 1])
        for index in 1..<3 { nodes.etcd.kill(index) }
        var sawUnavailable = false
        for attempt in 0..<4 where !sawUnavailable {
            do {
                _ = try await nodes.clientA.set(["q.lost": .integer(Int64(attempt))])
                Issue.record("a Set was acknowledged without a quorum")
            } catch {
                guard case .refused(.unavailable) = error else {
                    Issue.record("expected Unavailable, got \(error)")
                    continue
                }
                sawUnavailable = true
            }
        }
        #expect(sawUnavailable)
        for index in 1..<3 { try nodes.etcd.restart(index, waitForHealth: false) }
        for index in 0..<3 { try nodes.etcd.waitUntilHealthy(index) }
        let after = try await nodes.clientA.set(["q.k": 2])
        let events = try await observer.take { $0.contains { $0.revision == after } }
        #expect(events.map(\.revision) == [before, after])
        #expect(events.map(\.value) == [1, 2])
        #expect(try await nodes.clientB.get(["q.k"]).first?.revision == after)
    }

    /// A member that hangs rather than dies (SIGSTOP: its connections stay
    /// open, nothing is answered) under a node's watch and its
    /// transactions: the node leaves it for another member, its subscriber
    /// gets the other node's writes without a gap, and its own writes are
    /// acknowledged again.
    @Test func aFrozenMemberUnderANodesWatchIsLeftForAnother() async throws {
        let etcd = try EtcdCluster(members: 3)
        let urls = etcd.clientURLs
        // Node A prefers member 0 (its first endpoint), node B member 1.
        let nodeA = try PropdProcess(extraArguments: ["--etcd", urls.joined(separator: ","), "--etcd-prefix", "/propd/frozen"])
        let nodeB = try PropdProcess(extraArguments: [
            "--etcd", [urls[1], urls[2], urls[0]].joined(separator: ","), "--etcd-prefix", "/propd/frozen",
        ])
        let clientA = try await PropdClient.connect(to: nodeA.socketPath)
        let clientB = try await PropdClient.connect(to: nodeB.socketPath)
        let observer = EventCollector(clientA.observe(["f.k"], initial: false))
        _ = try await observer.synced()
        let onB = EventCollector(clientB.observe(["f.k"], initial: false))
        _ = try await onB.synced()
        let before = try await clientB.set(["f.k": 0])
        _ = try await observer.take { $0.contains { $0.revision == before } }

        etcd.freeze(0)
        defer { etcd.thaw(0) }
        // Member 0 may have led: B's writes go on once the others elect.
        var written: [Revision] = []
        for value in 1...3 { written.append(try await Self.acknowledged { try await clientB.set(["f.k": .integer(Int64(value))]) }) }
        let events = try await observer.take(timeout: .seconds(90)) { $0.contains { $0.revision == written.last } }
        #expect(events.map(\.revision) == written)
        #expect(events.map(\.value) == [1, 2, 3])
        // A's own writes reach etcd through another member too: B sees it
        // (another node's write is read there once its watch brought it).
        let fromA = try await Self.acknowledged { try await clientA.set(["f.k": 4]) }
        let seenOnB = try await onB.take(timeout: .seconds(90)) { $0.contains { $0.revision == fromA } }
        #expect(seenOnB.map(\.revision) == [before] + written + [fromA])
        #expect(seenOnB.map(\.value) == [0, 1, 2, 3, 4])
        #expect(try await clientB.get(["f.k"]).first?.revision == fromA)
    }

    /// `write`, sent again while it is refused as `Unavailable` (nothing
    /// applied: the cluster electing a new leader), for up to a minute.
    private static func acknowledged(_ write: () async throws -> Revision) async throws -> Revision {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try await write()
            } catch let error as PropdClientError {
                guard case .refused(.unavailable) = error, ContinuousClock.now < deadline else { throw error }
            }
        }
    }
}

/// A three-member etcd and two propd nodes on it, each with a client.
struct TwoNodes {
    let etcd: EtcdCluster
    let a: PropdProcess
    let b: PropdProcess
    let clientA: PropdClient
    let clientB: PropdClient
    /// The flags that start another node on the same space.
    let clusterArguments: [String]

    init(prefix: String) async throws {
        etcd = try EtcdCluster(members: 3)
        clusterArguments = ["--etcd", etcd.clientURLs.joined(separator: ","), "--etcd-prefix", prefix]
        a = try PropdProcess(extraArguments: clusterArguments)
        b = try PropdProcess(extraArguments: clusterArguments)
        clientA = try await PropdClient.connect(to: a.socketPath)
        clientB = try await PropdClient.connect(to: b.socketPath)
    }
}
