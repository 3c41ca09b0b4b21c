import PropdTestSupport
import PropdClient
import PropdCore
import Testing

/// Every io.propd method against a real daemon, through PropdClient; the
/// tests taking a store run on a cluster node too.
@Suite struct MethodTests {
    @Test(arguments: StoreKind.available) func setGetListDeleteRoundTrip(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let r1 = try await client.set(["room.temp": 21, "room.name": "kitchen", "room.on": true])
        let r2 = try await client.set(["room.temp": 21.5, "hall.temp": 19])
        let got = try await client.get(["room.temp", "room.name"])
        #expect(got.map(\.value) == [21.5, "kitchen"])
        #expect(got[0].revision == r2 && got[0].created == r1)
        #expect(got[1].revision == r1)

        let (rooms, revision) = try await client.list("room.*")
        #expect(rooms.map(\.key.rawValue) == ["room.name", "room.on", "room.temp"])
        #expect(revision == r2)
        let limited = try await client.list(nil, limit: 2)
        #expect(limited.properties.map(\.key.rawValue) == ["hall.temp", "room.name"])

        let r3 = try await client.delete(["room.on", "hall.temp"])
        daemon.expectFirstWrites([r1, r2, r3])
        #expect(try await client.list().properties.map(\.key.rawValue) == ["room.name", "room.temp"])
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "room.on"))) { try await client.get(["room.on"]) }
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "room.on"))) { try await client.delete(["room.on"]) }
    }

    /// A connection's pipelined writes commit in the order sent, also when
    /// they touch different keys (a cluster node keeps several requests in
    /// flight to etcd, which orders concurrent requests as they come).
    @Test(arguments: StoreKind.available) func pipelinedWritesOfDifferentKeysCommitInTheOrderSent(
        on store: StoreKind
    ) async throws {
        let daemon = try DaemonOnStore(store)
        let raw = try RawSocket(path: daemon.socketPath)
        let count = 100
        var bytes: [UInt8] = []
        for i in 0..<count {
            let call: JSONValue = ["method": "io.propd.Set", "parameters": ["values": ["order.k\(i)": .integer(Int64(i))]]]
            bytes += call.jsonBytes + [0]
        }
        #expect(raw.send(bytes))
        var revisions: [Revision] = []
        for i in 0..<count {
            guard case .object(let reply)? = try await raw.receive()?["parameters"], case .integer(let revision)? = reply["revision"]
            else {
                Issue.record("Set \(i) got no revision")
                return
            }
            revisions.append(Revision(revision))
        }
        daemon.expectFirstWrites(revisions)
    }

    @Test(arguments: StoreKind.available) func aDeleteWithOneMissingKeyDeletesNothingAndDisturbsNoOne(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["del.a": 1, "del.b": 2])
        // Concurrent writers share batches with the failing delete.
        let socketPath = daemon.socketPath
        async let others: [Revision] = withThrowingTaskGroup(of: Revision.self) { group in
            for i in 0..<8 {
                group.addTask {
                    let own = try await PropdClient.connect(to: socketPath)
                    return try await own.set(["del.other\(i)": .integer(Int64(i))])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "del.missing"))) {
            try await client.delete(["del.a", "del.missing", "del.b"])
        }
        #expect(try await others.count == 8)
        #expect(try await client.get(["del.a", "del.b"]).map(\.value) == [1, 2])
        // A key named twice is deleted once.
        try await client.delete(["del.a", "del.a"])
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "del.a"))) { try await client.get(["del.a"]) }
    }

    @Test(arguments: StoreKind.available) func integersStayIntegersOnTheWire(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["n.int": 21, "n.big": .integer(9_007_199_254_740_993), "n.real": 2.5])
        let values = try await client.get(["n.int", "n.big", "n.real"]).map(\.value)
        #expect(values == [.integer(21), .integer(9_007_199_254_740_993), .double(2.5)])
    }

    @Test(arguments: StoreKind.available) func expectationsGuardWrites(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let created = try await client.set(["doc.a": 1], expect: ["doc.a": 0])
        await #expect(throws: PropdClientError.refused(.revisionMismatch(key: "doc.a", expected: 0, actual: created))) {
            try await client.set(["doc.a": 2, "doc.b": 2], expect: ["doc.a": 0])
        }
        // The failed call wrote nothing, not even the other key.
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "doc.b"))) { try await client.get(["doc.b"]) }
        let next = try await client.set(["doc.a": 3], expect: ["doc.a": created])
        daemon.expectSuccessive([created, next])
        await #expect(throws: PropdClientError.refused(.revisionMismatch(key: "doc.a", expected: created, actual: next))) {
            try await client.delete(["doc.a"], expect: ["doc.a": created])
        }
        #expect(try await client.get(["doc.a"])[0].value == 3)
    }

    @Test func invalidKeysAndPatternsAreNamed() async throws {
        let daemon = try PropdProcess()
        let client = try await PropdClient.connect(to: daemon.socketPath)
        await #expect {
            try await client.set(["bad key": 1])
        } throws: { error in
            guard case PropdClientError.refused(.invalidKey(let key, let reason)) = error else { return false }
            return key == "bad key" && reason.contains("letters, digits")
        }
        await #expect {
            try await client.list("room.**.x")
        } throws: { error in
            guard case PropdClientError.refused(.invalidPattern(let pattern, _)) = error else { return false }
            return pattern == "room.**.x"
        }
        await #expect(throws: PropdClientError.self) { try await client.get(["a..b"]) }
        #expect(try await client.list().properties.isEmpty)
        #expect(try await client.stats().revision == 0)
    }

    @Test(arguments: StoreKind.available) func historyIsNewestFirstWithLimitAndBefore(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        var written: [Revision] = []
        for i in 1...5 { written.append(try await client.set(["h.k": .integer(Int64(i))])) }
        written.append(try await client.delete(["h.k"]))
        daemon.expectFirstWrites(written)
        let all = try await client.history("h.k")
        #expect(all.map(\.kind) == [.delete, .set, .set, .set, .set, .set])
        #expect(all.map(\.revision) == written.reversed())
        #expect(all[1].value == 5)
        let page = try await client.history("h.k", limit: 2, before: written[4])
        #expect(page.map(\.revision) == [written[3], written[2]])
        #expect(page.map(\.value) == [4, 3])
    }

    @Test(arguments: StoreKind.available) func bindingsAreDeclaredListedAndRemoved(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["room.temp": 20])
        let (revision, sources) = try await client.bind("room.fahrenheit", "room.temp.map { $0 * 9 / 5 + 32 }")
        #expect(sources == ["room.temp"])
        let derived = try await client.get(["room.fahrenheit"])[0]
        #expect(derived.value == 68)
        #expect(derived.revision == revision)
        #expect(derived.binding == "room.temp.map { $0 * 9 / 5 + 32 }")
        let listed = try await client.bindings()
        #expect(listed == [BindingInfo(key: "room.fahrenheit", expression: "room.temp.map { $0 * 9 / 5 + 32 }", sources: ["room.temp"], error: nil, state: ["states": []])])

        await #expect(throws: PropdClientError.refused(.keyIsDerived(key: "room.fahrenheit"))) {
            try await client.set(["room.fahrenheit": 1])
        }
        await #expect(throws: PropdClientError.refused(.keyIsDerived(key: "room.fahrenheit"))) {
            try await client.delete(["room.fahrenheit"])
        }
        try await client.unbind("room.fahrenheit")
        #expect(try await client.bindings().isEmpty)
        try await client.set(["room.temp": 30])
        // Unbind froze the last value; the key is plain now.
        #expect(try await client.get(["room.fahrenheit"])[0].value == 68)
        try await client.set(["room.fahrenheit": 1])
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "room.fahrenheit"))) { try await client.unbind("room.fahrenheit") }
    }

    @Test(arguments: StoreKind.available) func badBindingsAreRefusedWithPositionAndCycle(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        await #expect {
            try await client.bind("x.y", "combineLatest(a.b, c.d")
        } throws: { error in
            guard case PropdClientError.refused(.bindingInvalid(_, let line, let column)) = error else { return false }
            return line == 1 && column > 1
        }
        try await client.bind("c.b", "c.a.map { $0 + 1 }")
        try await client.bind("c.c", "c.b.map { $0 + 1 }")
        await #expect {
            try await client.bind("c.a", "c.c.map { $0 + 1 }")
        } throws: { error in
            guard case PropdClientError.refused(.bindingCycle(let keys)) = error else { return false }
            return Set(keys) == ["c.a", "c.b", "c.c"]
        }
        #expect(try await client.bindings().map(\.key) == ["c.b", "c.c"])
    }

    @Test(arguments: StoreKind.available) func derivedErrorStateKeepsTheLastValue(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["disk.used": 50, "disk.size": 100])
        try await client.bind("disk.ratio", "combineLatest(disk.used, disk.size).map { u, s in u / s }")
        #expect(try await client.get(["disk.ratio"])[0].value == 0.5)
        try await client.set(["disk.size": 0])
        let failed = try await client.get(["disk.ratio"])[0]
        #expect(failed.value == 0.5)
        #expect(failed.error != nil)
        #expect(try await client.bindings()[0].error != nil)
        try await client.set(["disk.size": 200])
        let healed = try await client.get(["disk.ratio"])[0]
        #expect(healed.value == 0.25 && healed.error == nil)
    }

    @Test(arguments: StoreKind.available) func statsCountWhatIsThere(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let set = try await client.set(["s.a": 1, "s.b": 2])
        let bound = try await client.bind("s.c", "s.a.map { $0 + 1 }").revision
        daemon.expectFirstWrites([set, bound])
        let stats = try await client.stats()
        #expect(stats.keys == 3)
        #expect(stats.bindings == 1)
        #expect(stats.connections >= 1)
        #expect(stats.uptimeSeconds >= 0)
        switch store {
        case .sqlite:
            #expect(stats.revision == bound)
            #expect(stats.databaseBytes > 0)
            #expect(stats.role == .standalone)
        case .etcd:
            // etcd's revision may have moved on since (a node's leases and
            // elections are etcd writes too); the space's bytes are etcd's.
            #expect(stats.revision >= bound)
            #expect(stats.databaseBytes == 0)
            guard case .cluster(let endpoints, _) = stats.role else {
                Issue.record("a cluster node reports \(stats.role)")
                return
            }
            #expect(endpoints == daemon.etcdEndpoints)
        }
    }
}
