import EtcdTestSupport
import Foundation
import PropdClient
import PropdCore
import PropdEtcd
import PropdTestSupport
import Synchronization
import Testing

/// Commands across real propd nodes on a real etcd: an `Execute` on node A
/// reaches a handler serving on node B; A writes the execution's two
/// revisions and answers with the handler's result or error.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterCommandTests {
    @Test func anExecuteOnNodeAReachesAHandlerOnNodeB() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/commands")
        var handler: RawHandler? = try await RawHandler(["door.open"], socket: nodes.b.socketPath)
        let executor = try await PropdClient.connect(to: nodes.a.socketPath)

        // A learns of B's handler through etcd: until then an Execute on A is NoHandler.
        async let opened = Self.executeOnceServed(executor, "door.open", argument: "front")
        let first = try #require(try await handler?.nextInvocation())
        #expect(first.command == "door.open" && first.argument == "front")
        #expect(try await complete(nodes.b.socketPath, first.id, result: ["opened": "front"])["error"] == nil)
        let result = try await opened
        #expect(result.result == ["opened": "front"])
        // A wrote the end: both nodes read it at the revision Execute
        // returned, B once past it (B answers its own write only when its
        // mirror stands at that write's revision).
        try await nodes.clientB.set(["sync.b": 1])
        for client in [nodes.clientA, nodes.clientB] {
            let executing = try await client.get(["door.open.executing", "door.open.error"])
            #expect(executing.map(\.value) == [false, .null])
            #expect(executing[0].revision == result.revision)
        }

        // The handler's error is A's CommandFailed, and A's door.open.error.
        let jammed = Task { try await executor.execute("door.open", argument: "jam") }
        let second = try #require(try await handler?.nextInvocation())
        _ = try await complete(nodes.b.socketPath, second.id, error: "jammed")
        await #expect(throws: PropdClientError.refused(.commandFailed(command: "door.open", message: "jammed"))) {
            try await jammed.value
        }
        #expect(try await nodes.clientA.value("door.open.error") == "jammed")

        // B's handler does not answer in time: A's timeout ends it and
        // clears its keys in etcd; the late answer changes nothing on A.
        await #expect(throws: PropdClientError.refused(.commandTimeout(command: "door.open"))) {
            try await executor.execute("door.open", argument: "slow", timeout: .milliseconds(300))
        }
        let slow = try #require(try await handler?.nextInvocation())
        #expect(slow.argument == "slow")
        let endpoints = try nodes.etcd.clientURLs.map { try EtcdEndpoint($0) }
        let relayKeys = try await withEtcdClient(EtcdClient.Configuration(endpoints: endpoints)) { etcd in
            try await Self.relayKeysOnceCleared(etcd, prefix: "/propd/commands")
        }
        #expect(relayKeys.isEmpty, "left in etcd: \(relayKeys)")
        _ = try await complete(nodes.b.socketPath, slow.id, result: "late")
        let ended = try await nodes.clientA.get(["door.open.executing", "door.open.error"])
        #expect(ended.map(\.value) == [false, "timeout after 300ms"])

        // The handler on B vanishes mid-execution: A's Execute is NoHandler.
        let orphaned = Task { try await executor.execute("door.open", argument: "back") }
        _ = try await handler?.nextInvocation()
        handler = nil  // closes its socket, as a crash would
        await #expect(throws: PropdClientError.refused(.noHandler(command: "door.open"))) { try await orphaned.value }
        #expect(try await nodes.clientA.value("door.open.executing") == false)
    }

    /// The node whose handler runs an execution is SIGKILLed: its lease
    /// ends, and the executing node ends the execution with `NoHandler`
    /// (not its 30 s `CommandTimeout`), `executing` back to false.
    @Test func aHandlersNodeKilledMidExecutionIsNoHandlerWhereItWasExecuted() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/commands-kill")
        let handler = try await RawHandler(["door.open"], socket: nodes.b.socketPath)
        let executor = try await PropdClient.connect(to: nodes.a.socketPath)
        // Once A knows B's handler (a first execution answered), the one that counts.
        let warmUp = Task { try await Self.executeOnceServed(executor, "door.open", argument: "warm") }
        _ = try await complete(nodes.b.socketPath, try await handler.nextInvocation().id, result: true)
        _ = try await warmUp.value
        let execution = Task { try await executor.execute("door.open", argument: "front") }
        #expect(try await handler.nextInvocation().argument == "front")
        nodes.b.kill()
        await #expect(throws: PropdClientError.refused(.noHandler(command: "door.open"))) { try await execution.value }
        #expect(try await nodes.clientA.value("door.open.executing") == false)
    }

    /// The invocation and ending keys under `PREFIX.commands/`, once none
    /// is left (or what is left after `timeout`): the executing node
    /// deletes them when the execution ends. Read once, then watched from
    /// that read on, so each delete is seen as etcd applies it.
    static func relayKeysOnceCleared(_ etcd: EtcdClient, prefix: String, timeout: Duration = .seconds(30)) async throws
        -> [String]
    {
        let relay = prefix + ".commands/"
        let tables = ["invocations/", "endings/"].map { relay + $0 }
        let isRelayKey: @Sendable (String) -> Bool = { key in tables.contains { key.hasPrefix($0) } }
        let read = try await etcd.range(.prefix(Array(relay.utf8)))
        let left = Mutex(Set(read.keyValues.map { String(decoding: $0.key, as: UTF8.self) }.filter(isRelayKey)))
        guard !left.withLock({ $0.isEmpty }) else { return [] }
        do {
            try await withDeadline(timeout, waitingFor: "the relay's keys deleted") {
                do {
                    try await etcd.watch(.prefix(Array(relay.utf8)), from: read.revision + 1) { update in
                        guard case .events(let events) = update else { return }
                        let cleared = left.withLock { left in
                            for event in events {
                                let key = String(decoding: event.keyValue.key, as: UTF8.self)
                                guard isRelayKey(key) else { continue }
                                if event.kind == .delete { left.remove(key) } else { left.insert(key) }
                            }
                            return left.isEmpty
                        }
                        if cleared { throw RelayCleared() }
                    }
                } catch is RelayCleared {}
            }
        } catch is DeadlinePassed {}
        return left.withLock { $0.sorted() }
    }

    /// Ends the watch of ``relayKeysOnceCleared(_:prefix:timeout:)``.
    private struct RelayCleared: Error {}

    /// `Execute` on `client`, again while it is `NoHandler` (another node's
    /// handler is not known there yet), for at most `timeout`.
    static func executeOnceServed(
        _ client: PropdClient, _ command: String, argument: JSONValue, timeout: Duration = .seconds(60)
    ) async throws -> ExecutionResult {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            do {
                return try await client.execute(command, argument: argument)
            } catch {
                guard case .refused(.noHandler) = error, clock.now < deadline else { throw error }
                // Polling pace: the announcement has no event on this node's surface.
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
