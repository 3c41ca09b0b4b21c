import PropdTestSupport
import PropdClient
import PropdCore
import Testing

/// A subscriber that stops reading is ended with `SlowConsumer(revision)`
/// while the daemon's memory stays bounded and everyone else carries on; it
/// resumes with `since` and loses nothing. With `coalesce` it is never ended.
/// On either store: revisions are the ones the writes returned (1, 2, 3… on
/// SQLite, strictly increasing on etcd).
@Suite struct SlowConsumerTests {
    static let calls = 300
    /// Under etcd's 128 operations per transaction (`--max-txn-ops`).
    static let keysPerCall = 100

    /// Writes `calls` revisions of `keysPerCall` keys each under `prefix`;
    /// returns their revisions.
    static func flood(_ client: PropdClient, prefix: String, calls: Int = calls, keys: Int = keysPerCall) async throws
        -> [Revision]
    {
        var revisions: [Revision] = []
        for call in 0..<calls {
            var values: [String: JSONValue] = [:]
            for k in 0..<keys { values["\(prefix).k\(k)"] = .integer(Int64(call)) }
            revisions.append(try await client.set(values))
        }
        return revisions
    }

    func event(_ reply: [String: JSONValue]) -> (revision: Int64, key: String)? {
        guard case .object(let parameters)? = reply["parameters"], case .object(let event)? = parameters["event"],
            case .integer(let revision)? = event["revision"], case .string(let key)? = event["key"]
        else { return nil }
        return (revision, key)
    }

    @Test(arguments: StoreKind.available) func aStalledSubscriberIsEndedAndResumesWithoutLoss(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let stalled = try RawSocket(path: daemon.socketPath)
        #expect(stalled.call("io.propd.Subscribe", ["patterns": ["slow.**"], "initial": false], more: true))
        guard let synced = try await stalled.receive() else { throw RawSocket.Failure(description: "no synced event") }
        #expect(event(synced)?.key == "")

        let fast = EventCollector(client.observe(["slow.**"], initial: false))
        _ = try await fast.synced()
        let written = try await Self.flood(client, prefix: "slow")
        daemon.expectFirstWrites(written)
        let total = Self.calls * Self.keysPerCall
        // The fast subscriber gets everything, in order.
        let all = try await fast.take { $0.count == total }
        #expect(all.map(\.revision) == written.flatMap { Array(repeating: $0, count: Self.keysPerCall) })

        // The stalled one now reads what was sent before it was ended, then the error.
        var received: [(Int64, String)] = []
        var ended: Int64?
        while let reply = try await stalled.receive() {
            if case .string(let name)? = reply["error"] {
                #expect(name == "io.propd.SlowConsumer")
                if case .object(let p)? = reply["parameters"], case .integer(let r)? = p["revision"] { ended = r }
                break
            }
            if let e = event(reply) { received.append(e) }
        }
        let revision = try #require(ended)
        #expect(received.count < total)
        // Every revision up to the one named was sent completely.
        let complete = received.filter { $0.0 <= revision }
        #expect(complete.count == written.filter { $0.rawValue <= revision }.count * Self.keysPerCall)

        // Resuming with since loses nothing and repeats nothing.
        let resumed = try await EventCollector(client.observe(["slow.**"], since: Revision(revision)))
            .take { $0.last?.kind == .synced }
        let replayed = resumed.dropLast()
        #expect(complete.count + replayed.count == total)
        #expect(replayed.allSatisfy { $0.revision.rawValue > revision })
    }

    @Test(arguments: StoreKind.available) func aCoalescingSubscriberGetsTheLatestValuesAndIsNeverEnded(on store: StoreKind)
        async throws
    {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let lagging = try RawSocket(path: daemon.socketPath)
        #expect(lagging.call("io.propd.Subscribe", ["patterns": ["co.**"], "initial": false, "coalesce": true], more: true))
        _ = try await lagging.receive()  // synced
        let calls = 400
        let written = try await Self.flood(client, prefix: "co", calls: calls, keys: 100)
        daemon.expectFirstWrites(written)
        let finalRevision = try #require(written.last).rawValue
        var latest: [String: Int64] = [:]
        var count = 0
        while latest.count < 100 || latest.values.contains(where: { $0 < finalRevision }) {
            guard let reply = try await lagging.receive() else {
                Issue.record("the coalescing subscriber was disconnected")
                return
            }
            #expect(reply["error"] == nil)
            guard let e = event(reply) else { continue }
            latest[e.key] = e.revision
            count += 1
        }
        #expect(count < calls * 100)
        #expect(latest.values.allSatisfy { $0 == finalRevision })
    }
}

/// With default settings (100 values of history per key, a bound of 10,000
/// events), a subscriber ended on a hot key resumes with `since` and loses
/// nothing: history keeps what it still needs. SQLite's `history-per-key`
/// alone: a cluster's history is etcd's, whole until etcd compacts.
@Suite struct HotKeyResumeTests {
    @Test func aSubscriberEndedOnAHotKeyResumesWithoutLoss() async throws {
        let daemon = try PropdProcess()
        let stalled = try RawSocket(path: daemon.socketPath)
        #expect(stalled.call("io.propd.Subscribe", ["patterns": ["hot"], "initial": false], more: true))
        _ = try #require(try await stalled.receive())  // synced at 0

        let writer = try RawSocket(path: daemon.socketPath)
        let total = 20_000
        var sent = 0
        while sent < total {
            let burst = min(500, total - sent)
            var bytes: [UInt8] = []
            for i in sent..<(sent + burst) {
                bytes += JSONValue.object(["method": "io.propd.Set", "parameters": ["values": ["hot": .integer(Int64(i))]]])
                    .jsonBytes + [0]
            }
            #expect(writer.send(bytes))
            for _ in 0..<burst { #expect(try await writer.receive()?["error"] == nil) }
            sent += burst
        }

        var delivered: [Int64] = []
        var ended: Int64?
        while let reply = try await stalled.receive() {
            if reply["error"] != nil {
                #expect(reply["error"] == "io.propd.SlowConsumer")
                if case .integer(let r)? = reply["parameters"]?["revision"] { ended = r }
                break
            }
            if case .integer(let r)? = reply["parameters"]?["event"]?["revision"] { delivered.append(r) }
        }
        let revision = try #require(ended, "the stalled subscriber was not ended")
        #expect(delivered.filter { $0 <= revision }.count == Int(revision))

        let resumed = try RawSocket(path: daemon.socketPath)
        #expect(resumed.call("io.propd.Subscribe", ["patterns": ["hot"], "since": .integer(revision)], more: true))
        var replayed: [Int64] = []
        while let reply = try await resumed.receive() {
            #expect(reply["error"] == nil, "\(reply)")
            guard reply["error"] == nil, case .object(let event)? = reply["parameters"]?["event"] else { break }
            if event["kind"] == "synced" { break }
            if case .integer(let r)? = event["revision"] { replayed.append(r) }
        }
        #expect(replayed == Array((revision + 1)...Int64(total)))
    }
}
