import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// takeUntil, takeWhile, skipWhile, ignore and flattenMap through a real
/// daemon; the latches are restarted in the middle, so what they hold must
/// have been stored with the change that set it (in SQLite, or in etcd on
/// a cluster node).
@Suite struct SeedOperatorTests {
    /// The values `key` received, oldest first, from its history.
    private func values(of key: String, _ client: PropdClient) async throws -> [JSONValue?] {
        try await client.history(key).filter { $0.kind == .set }.map(\.value).reversed()
    }

    @Test(arguments: StoreKind.available) func takeUntilIsASourceAndStaysFrozenAcrossARestart(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["cell.button": 1, "cell.reused": false])
        let bound = try await client.bind("cell.taps", "cell.button.map { $0 * 10 }.takeUntil(cell.reused)")
        #expect(bound.sources == ["cell.button", "cell.reused"])
        #expect(try await client.bindings("cell.*").map(\.sources) == [["cell.button", "cell.reused"]])
        try await client.set(["cell.button": 2])
        #expect(try await client.get(["cell.taps"]).first?.value == 20)
        // KEY and the source in one revision: that revision's value is not emitted.
        try await client.set(["cell.button": 3, "cell.reused": true])
        #expect(try await client.get(["cell.taps"]).first?.value == 20)

        try daemon.process.restart()
        let again = try await PropdClient.connect(to: daemon.socketPath)
        try await again.set(["cell.button": 4])
        #expect(try await again.get(["cell.taps"]).first?.value == 20)
        #expect(try await values(of: "cell.taps", again) == [10, 20])
    }

    @Test(arguments: StoreKind.available) func takeUntilEndsOnADeleteOfItsKey(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["a": 1, "lease": "held"])
        try await client.bind("t", "a.takeUntil(lease)")
        try await client.delete(["lease"])
        try daemon.process.restart()
        let again = try await PropdClient.connect(to: daemon.socketPath)
        try await again.set(["a": 2])
        try await again.set(["lease": "again"])
        try await again.set(["a": 3])
        #expect(try await values(of: "t", again) == [1])
    }

    @Test(arguments: StoreKind.available) func takeWhileStaysFrozenAcrossARestart(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.bind("w", "level.takeWhile { x in x < 10 }")
        try await client.set(["level": 1])
        try await client.set(["level": 12])
        #expect(try await client.get(["w"]).first?.value == 1)

        try daemon.process.restart()
        let again = try await PropdClient.connect(to: daemon.socketPath)
        try await again.set(["level": 3])
        #expect(try await again.get(["w"]).first?.value == 1)
        #expect(try await values(of: "w", again) == [1])
    }

    @Test(arguments: StoreKind.available) func skipWhileStaysOpenAcrossARestart(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["boot.phase": 0])
        try await client.bind("ready", "boot.phase.skipWhile { $0 < 3 }")
        try await client.set(["boot.phase": 2])
        let waiting = try #require(try await client.get(["ready"]).first)
        #expect(waiting.value == nil && waiting.binding != nil, "\(waiting)")
        try await client.set(["boot.phase": 5])

        try daemon.process.restart()
        let again = try await PropdClient.connect(to: daemon.socketPath)
        try await again.set(["boot.phase": 0])
        #expect(try await again.get(["ready"]).first?.value == 0)
        #expect(try await values(of: "ready", again) == [5, 0])
    }

    @Test(arguments: StoreKind.available) func ignoreDropsEqualValues(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.bind("weather", #"input.text.ignore("sunny")"#)
        try await client.set(["input.text": "rain"])
        let sunny = try await client.set(["input.text": "sunny"])
        let kept = try #require(try await client.get(["weather"]).first)
        #expect(kept.value == "rain")
        #expect(kept.revision < sunny)
        try await client.set(["input.text": "snow"])
        #expect(try await values(of: "weather", client) == ["rain", "snow"])
    }

    @Test(arguments: StoreKind.available) func flattenMapFollowsTheNamedKeyAcrossARestart(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["profiles.home.volume": 3, "profiles.work.volume": 7, "settings.profile": "home"])
        try await client.bind("audio.volume", #"settings.profile.flattenMap { p in key("profiles." + p + ".volume") }"#)
        #expect(try await client.get(["audio.volume"]).first?.value == 3)
        try await client.set(["settings.profile": "work"])

        try daemon.process.restart()
        let again = try await PropdClient.connect(to: daemon.socketPath)
        try await again.set(["profiles.work.volume": 8])
        #expect(try await again.get(["audio.volume"]).first?.value == 8)
    }

    @Test(arguments: StoreKind.available) func switchToLatestIsRefusedWithTheWayToWriteIt(on store: StoreKind) async throws {
        let daemon = try DaemonOnStore(store)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let switched = await #expect(throws: PropdClientError.self) {
            try await client.bind("v", #"p.map { "k." + $0 }.switchToLatest()"#)
        }
        guard case .refused(.bindingInvalid(let message, let line, let column))? = switched else {
            Issue.record("not BindingInvalid: \(String(describing: switched))")
            return
        }
        #expect(message.contains("flatMap { x in key(…) }"), "\(message)")
        #expect((line, column) == (1, 21))
        let doNext = await #expect(throws: PropdClientError.self) { try await client.bind("v", "a.doNext { x in x }") }
        guard case .refused(.bindingInvalid(let advice, 1, 3))? = doNext else {
            Issue.record("not BindingInvalid at 1:3: \(String(describing: doNext))")
            return
        }
        #expect(advice.contains("Subscribe"), "\(advice)")
        // Nothing was declared.
        #expect(try await client.bindings().isEmpty)
    }
}
