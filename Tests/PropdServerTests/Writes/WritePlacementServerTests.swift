import Foundation
import Logging
import PropdCore
import PropdServer
import PropdService
import PropdStore
import PropdVarlink
import Testing

/// io.propd in process (real store file, real socket, real NIO loops): where
/// the server's writes commit, and the client's order on one connection.
@Suite(.timeLimit(.minutes(1))) struct WritePlacementServerTests {
    @Test func aConnectionsReadsSeeExactlyTheWritesSentBeforeThem() async throws {
        let server = try await InProcessServer.start()
        let connection = try await VarlinkConnection.connect(to: server.path)
        // One flush: the server reads the calls in one burst.
        let results = try await connection.pipeline([
            set("a", 1), get("a"), set("a", 2), set("b", 1), get("a"), get("b"), set("a", 3), get("a"),
        ])
        let replies = try results.map { try $0.get() }
        // One revision per request, in the client's order.
        #expect(replies[0]["revision"] == 1)
        #expect(replies[2]["revision"] == 2)
        #expect(replies[3]["revision"] == 3)
        #expect(replies[6]["revision"] == 4)
        #expect(value(replies[1]) == 1)
        #expect(value(replies[4]) == 2)
        #expect(value(replies[5]) == 1)
        #expect(value(replies[7]) == 3)
        await connection.close()
        try await server.stop()
    }

    /// In `full` too, as long as the loop serves no other connection (one loop, one client).
    @Test(arguments: StoreConfiguration.Durability.allCases)
    func aClientWaitingForEachReplyHasEveryWriteCommittedOnItsLoop(durability: StoreConfiguration.Durability) async throws {
        let server = try await InProcessServer.start(durability: durability, eventLoops: 1)
        let connection = try await VarlinkConnection.connect(to: server.path)
        for n in 1...10 {
            let reply = try await connection.call("io.propd.Set", ["values": ["k": .integer(Int64(n))]])
            #expect(reply["revision"] == .integer(Int64(n)))
        }
        let statistics = server.store.statistics
        #expect(statistics.requests == 10)
        #expect(statistics.inlineBatches == statistics.batches)
        await connection.close()
        try await server.stop()
    }

    /// In `normal`, a pipelining client alone on its loop has its writes
    /// committed there, however many a tick reads.
    @Test func aPipeliningClientAloneOnItsLoopHasItsWritesCommittedThere() async throws {
        let server = try await InProcessServer.start(eventLoops: 1)
        let connection = try await VarlinkConnection.connect(to: server.path)
        // More Sets in one flush than a tick commits of lone writes on its loop.
        let count = PropertyStore.tickCommitLimit + 8
        let results = try await connection.pipeline((1...count).map { set("k.\($0)", Int64($0)) })
        #expect(try results.map { try $0.get()["revision"] } == (1...count).map { .integer(Int64($0)) })
        let statistics = server.store.statistics
        #expect(statistics.requests == count)
        #expect(statistics.inlineBatches == statistics.batches)
        await connection.close()
        try await server.stop()
    }

    /// On a loop that serves other connections too, or in `full`, a
    /// pipelining client's writes commit on the writer: the loop reads on
    /// meanwhile.
    @Test(arguments: [(StoreConfiguration.Durability.normal, true), (.full, false), (.full, true)])
    func aPipeliningClientsWritesCommitOnTheWriterWhenItSharesItsLoopOrInFull(
        durability: StoreConfiguration.Durability, sharing: Bool
    ) async throws {
        let server = try await InProcessServer.start(durability: durability, eventLoops: 1)
        let connection = try await VarlinkConnection.connect(to: server.path)
        let other = sharing ? try await VarlinkConnection.connect(to: server.path) : nil
        // Answered, so the loop serves it.
        _ = try await other?.call("org.varlink.service.GetInfo", [:])
        // Three Sets in one flush, read in one burst: the first is alone, the
        // others are not, so the tick's end wakes the writer for all three.
        // (Were they all taken for alone, it would commit them on the loop.)
        let results = try await connection.pipeline((1...3).map { set("k.\($0)", Int64($0)) })
        #expect(try results.map { try $0.get()["revision"] } == [1, 2, 3])
        let statistics = server.store.statistics
        #expect(statistics.requests == 3)
        #expect(statistics.inlineBatches == 0)
        await other?.close()
        await connection.close()
        try await server.stop()
    }

    @Test func withFullDurabilityAClientSharingItsLoopHasItsWritesCommittedOnTheWriter() async throws {
        let server = try await InProcessServer.start(durability: .full, eventLoops: 1)
        let connection = try await VarlinkConnection.connect(to: server.path)
        let other = try await VarlinkConnection.connect(to: server.path)
        // Answered, so the loop serves it: its client is one an fsync on the loop would hold up.
        _ = try await other.call("org.varlink.service.GetInfo", [:])
        for n in 1...5 {
            let reply = try await connection.call("io.propd.Set", ["values": ["k": .integer(Int64(n))]])
            #expect(reply["revision"] == .integer(Int64(n)))
        }
        let statistics = server.store.statistics
        #expect(statistics.requests == 5)
        #expect(statistics.batches == 5)
        #expect(statistics.inlineBatches == 0)
        await other.close()
        await connection.close()
        try await server.stop()
    }

    @Test func withFullDurabilityAClientLeftAloneOnItsLoopHasItsWritesCommittedThereAgain() async throws {
        let server = try await InProcessServer.start(durability: .full, eventLoops: 1)
        let connection = try await VarlinkConnection.connect(to: server.path)
        let other = try await VarlinkConnection.connect(to: server.path)
        _ = try await other.call("org.varlink.service.GetInfo", [:])
        _ = try await connection.call("io.propd.Set", ["values": ["k": 0]])
        #expect(server.store.statistics.inlineBatches == 0)
        await other.close()
        // The server hears of the close in its own time: Set until a write
        // commits on the loop, which it does once the loop serves one connection.
        let deadline = ContinuousClock.now + .seconds(20)
        var n: Int64 = 0
        while server.store.statistics.inlineBatches == 0, ContinuousClock.now < deadline {
            n += 1
            _ = try await connection.call("io.propd.Set", ["values": ["k": .integer(n)]])
        }
        #expect(server.store.statistics.inlineBatches > 0)
        await connection.close()
        try await server.stop()
    }

    private func set(_ key: String, _ value: Int64) -> VarlinkCall {
        VarlinkCall(method: "io.propd.Set", parameters: ["values": [key: .integer(value)]])
    }

    private func get(_ key: String) -> VarlinkCall {
        VarlinkCall(method: "io.propd.Get", parameters: ["keys": [.string(key)]])
    }

    /// The value of a Get reply's only property.
    private func value(_ reply: [String: JSONValue]) -> JSONValue? {
        guard case .array(let properties)? = reply["properties"], case .object(let property)? = properties.first else {
            return nil
        }
        return property["value"] ?? nil
    }
}

/// A store, the service and io.propd on a fresh socket, in this process.
struct InProcessServer {
    let directory: TemporaryDirectory
    let store: PropertyStore
    let service: PropertyService
    let server: VarlinkServer
    let task: Task<Void, any Error>
    let path: String

    /// `eventLoops`: the server's loops (nil: one per core).
    static func start(durability: StoreConfiguration.Durability = .normal, eventLoops: Int? = nil) async throws -> InProcessServer {
        let directory = try TemporaryDirectory()
        let store = try PropertyStore(
            path: directory.path + "/propd.db", configuration: StoreConfiguration(durability: durability))
        let service = try PropertyService(store: store, logger: Logger(label: "propd.test"))
        let interface = IOPropdInterface(service: service, connections: { 0 })
        let path = directory.path + "/s.sock"
        var configuration = VarlinkServerConfiguration()
        if let eventLoops { configuration.eventLoopCount = eventLoops }
        let server = try VarlinkServer(
            address: .path(path),
            info: VarlinkServiceInfo(vendor: "propd", product: "propd", version: "test", url: "https://propd.invalid"),
            interfaces: [interface.varlinkInterface], configuration: configuration, logger: Logger(label: "propd.test"))
        let task = Task { try await server.run() }
        try await server.listening()
        return InProcessServer(directory: directory, store: store, service: service, server: server, task: task, path: path)
    }

    func stop() async throws {
        server.beginGracefulShutdown()
        try await task.value
        service.shutdown()
        store.close()
    }
}
