import PropdTestSupport
import PropdClient
import PropdCore
import Testing

/// Subscriptions against a real daemon on each store.
@Suite struct SubscriptionTests {
    @Test(arguments: StoreKind.available) func initialThenSyncedThenLive(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let first = try await client.set(["room.a": 1, "room.b": 2, "other.c": 3])
        let observer = EventCollector(client.observe(["room.*"]))
        _ = try await observer.synced()
        let live = try await client.set(["room.a": 10, "other.c": 30])
        _ = try await observer.take { $0.count == 1 }
        let result = observer.all
        daemon.expectFirstWrites([first, live])
        #expect(result[0] == Event(key: "room.a", kind: .initial, value: 1, revision: first))
        #expect(result[1] == Event(key: "room.b", kind: .initial, value: 2, revision: first))
        #expect(result[2].kind == .synced && result[2].key == "" && result[2].revision == first)
        #expect(result[3] == Event(key: "room.a", kind: .set, value: 10, revision: live))
    }

    @Test(arguments: StoreKind.available) func replayGivesTheLastValuesOldestFirst(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        var written: [Revision] = []
        for i in 1...5 { written.append(try await client.set(["r.k": .integer(Int64(i))])) }
        daemon.expectFirstWrites(written)
        let result = try await EventCollector(client.observe(["r.k"], replay: 3)).take { $0.last?.kind == .synced }
        #expect(result.map(\.kind) == [.replay, .replay, .replay, .synced])
        #expect(result.prefix(3).map(\.value) == [3, 4, 5])
        #expect(result.prefix(3).map(\.revision) == Array(written[2...]))
    }

    @Test(arguments: StoreKind.available) func sinceReplaysEveryChangeInOrderIncludingDeletes(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let r = [
            try await client.set(["s.a": 1]),
            try await client.set(["s.a": 2, "s.b": 1]),
            try await client.delete(["s.a"]),
            try await client.set(["t.x": 1]),  // not matching
        ]
        daemon.expectFirstWrites(r)
        let result = try await EventCollector(client.observe(["s.*"], since: r[0])).take { $0.last?.kind == .synced }
        #expect(
            result.map { "\($0.revision):\($0.kind.rawValue):\($0.key)" } == [
                "\(r[1]):set:s.a", "\(r[1]):set:s.b", "\(r[2]):delete:s.a", "\(r[3]):synced:",
            ])
    }

    @Test(arguments: StoreKind.available) func noInitialGivesOnlySyncedThenLive(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let written = try await client.set(["n.a": 1])
        daemon.expectFirstWrites([written])
        let result = try await EventCollector(client.observe(["n.*"], initial: false)).take { $0.last?.kind == .synced }
        #expect(result == [Event.synced(at: written)])
    }

    @Test(arguments: StoreKind.available) func concurrentWritersAreSeenInRevisionOrderWithoutGaps(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let writers = 16
        let perWriter = 50
        let total = writers * perWriter
        let observer = EventCollector(client.observe(["w.**"], initial: false))
        _ = try await observer.synced()
        let socketPath = daemon.socketPath
        let written = try await withThrowingTaskGroup(of: [Revision].self) { group in
            for w in 0..<writers {
                group.addTask {
                    let own = try await PropdClient.connect(to: socketPath)
                    var revisions: [Revision] = []
                    for i in 0..<perWriter {
                        // Two keys per revision: they must arrive together.
                        revisions.append(try await own.set(["w.\(w).a": .integer(Int64(i)), "w.\(w).b": .integer(Int64(i))]))
                    }
                    return revisions
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let events = try await observer.take { $0.count == total * 2 }
        #expect(events.allSatisfy { $0.kind == .set })
        let revisions = events.map(\.revision.rawValue)
        // Every revision exactly once, two contiguous events each, rising.
        #expect(Set(revisions).count == total)
        #expect(revisions == revisions.sorted())
        for pair in stride(from: 0, to: events.count, by: 2) {
            #expect(events[pair].revision == events[pair + 1].revision)
        }
        // Exactly the acknowledged revisions, numbered 1 to total on SQLite.
        #expect(Set(revisions) == Set(written.map(\.rawValue)))
        daemon.expectFirstWrites(Set(events.map(\.revision)).sorted())
    }

    /// More events than a subscriber's pump takes in one drain (256), as a
    /// backlog and as live revisions committed together: each event arrives
    /// once, in order, a revision's events together.
    @Test(arguments: StoreKind.available) func backlogsAndBurstsLongerThanOneDrainArriveWholeAndInOrder(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        // many.k000 … many.k599: key order is number order.
        let keys = (0..<600).map { "many.k" + String(1000 + $0).dropFirst() }
        let chunks = stride(from: 0, to: keys.count, by: 100).map { Array(keys[$0..<$0 + 100]) }
        var written: [Revision] = []
        for chunk in chunks {
            written.append(try await client.set(Dictionary(uniqueKeysWithValues: chunk.map { ($0, JSONValue.integer(1)) })))
        }
        let observer = EventCollector(client.observe(["many.*"]))
        let backlog = try await observer.take { $0.last?.kind == .synced }
        #expect(backlog.dropLast().map(\.key) == keys)
        #expect(backlog.dropLast().allSatisfy { $0.kind == .initial && $0.value == 1 })
        #expect(backlog.last == Event.synced(at: written[written.count - 1]))

        // Six writers at once, 100 keys each: the daemon commits them
        // together when it can, so one publish may carry hundreds of events.
        let socketPath = daemon.socketPath
        let live = try await withThrowingTaskGroup(of: Revision.self) { group in
            for chunk in chunks {
                group.addTask {
                    let own = try await PropdClient.connect(to: socketPath)
                    return try await own.set(Dictionary(uniqueKeysWithValues: chunk.map { ($0, JSONValue.integer(2)) }))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let events = try await observer.take { $0.count == keys.count }
        #expect(events.allSatisfy { $0.kind == .set && $0.value == 2 })
        #expect(events.map(\.key).sorted() == keys)
        // Each acknowledged revision once, its 100 events together, rising.
        var revisions: [Revision] = []
        for event in events where revisions.last != event.revision { revisions.append(event.revision) }
        #expect(revisions == live.sorted())
        daemon.expectFirstWrites(written + live.sorted())
    }

    @Test(arguments: StoreKind.available) func aDiamondGivesOneEventPerDerivedKeyPerRevision(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["d.a": 1])
        try await client.bind("d.b", "d.a.map { $0 + 1 }")
        try await client.bind("d.c", "d.a.map { $0 * 10 }")
        try await client.bind("d.d", "combineLatest(d.b, d.c).map { b, c in [b, c] }")
        let observer = EventCollector(client.observe(["d.**"], initial: false))
        _ = try await observer.synced()
        var revisions: [Revision] = []
        for value in [2, 3, 4] { revisions.append(try await client.set(["d.a": .integer(Int64(value))])) }
        let events = try await observer.take { events in events.filter { $0.key == "d.d" }.count == 3 }
        #expect(events.count == 12)
        for (revision, a) in zip(revisions, [2, 3, 4]) {
            let atRevision = events.filter { $0.revision == revision }
            #expect(atRevision.map(\.key).sorted() == ["d.a", "d.b", "d.c", "d.d"])
            // Never a mix of old b and new c.
            #expect(atRevision.first { $0.key == "d.d" }?.value == .array([.integer(Int64(a + 1)), .integer(Int64(a * 10))]))
        }
    }

    @Test(arguments: StoreKind.available) func observeResumesAcrossADaemonRestartWithoutGapOrDuplicate(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let total = 40
        let observer = EventCollector(client.observe(["resume.k"], initial: false))
        _ = try await observer.synced()
        for i in 0..<(total / 2) { try await client.set(["resume.k": .integer(Int64(i))]) }
        try daemon.process.restart()
        let again = try await PropdClient.connect(to: daemon.socketPath)
        for i in (total / 2)..<total { try await again.set(["resume.k": .integer(Int64(i))]) }
        let values = try await observer.take { events in events.filter { $0.kind == .set }.count == total }
            .filter { $0.kind == .set }.map(\.value)
        #expect(values == (0..<total).map { .integer(Int64($0)) })
    }

    @Test(arguments: StoreKind.available) func subscribeWithSinceBeyondTheStoreIsRefused(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let written = try await client.set(["x.a": 1])
        let beyond = Revision(written.rawValue + 98)
        await #expect(throws: PropdClientError.other(name: "org.varlink.service.InvalidParameter", parameters: ["parameter": "since"])) {
            _ = try await EventCollector(client.observe(["x.*"], since: beyond)).take { _ in true }
        }
    }
}
