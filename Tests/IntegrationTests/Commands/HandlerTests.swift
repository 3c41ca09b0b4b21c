import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Synchronization
import Testing

/// Handlers: several per command, each invocation to exactly one; a handler
/// that leaves, answers twice, answers from elsewhere, or answers too much.
@Suite struct HandlerTests {
    @Test(arguments: StoreKind.available) func eachInvocationGoesToExactlyOneHandler(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let counts = Mutex<[String: Int]>([:])
        var handlers: [Task<Void, any Error>] = []
        for name in ["h1", "h2", "h3"] {
            handlers.append(
                try await swiftHandler(["work.a", "work.b"] + (0..<8).map { "work.c\($0)" }, daemon: daemon) { invocation in
                    counts.withLock { $0[name, default: 0] += 1 }
                    return ["by": .string(name), "argument": invocation.argument ?? .null]
                })
        }
        defer { for handler in handlers { handler.cancel() } }

        let client = try await PropdClient.connect(to: daemon.socketPath)
        var servedBy: [String] = []
        for i in 0..<12 {
            let answer = try await client.execute(i.isMultiple(of: 2) ? "work.a" : "work.b", argument: .integer(Int64(i)))
            #expect(answer.result?["argument"] == .integer(Int64(i)))
            if case .string(let name)? = answer.result?["by"] { servedBy.append(name) }
        }
        #expect(servedBy.count == 12)
        let seen = counts.withLock { $0 }
        // Exactly one handler ran each invocation, and the work was shared.
        #expect(seen.values.reduce(0, +) == 12)
        #expect(Set(seen.keys) == ["h1", "h2", "h3"])
        for name in seen.keys { #expect(seen[name] == servedBy.filter { $0 == name }.count) }

        // Concurrent executions of different commands, each answered once.
        let socket = daemon.socketPath
        let results = try await withThrowingTaskGroup(of: (Int, JSONValue?).self) { group in
            for i in 0..<8 {
                group.addTask {
                    let own = try await PropdClient.connect(to: socket)
                    return (i, try await own.execute("work.c\(i)", argument: .integer(Int64(i))).result)
                }
            }
            return try await group.reduce(into: [(Int, JSONValue?)]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        for (i, result) in results { #expect(result?["argument"] == .integer(Int64(i))) }
        #expect(counts.withLock { $0.values.reduce(0, +) } == 20)
    }

    @Test(arguments: StoreKind.available) func aHandlerThatDisconnectsFailsItsExecutionWithNoHandler(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        var handler: RawHandler? = try await RawHandler(["print.page"], daemon: daemon)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let reader = try await PropdClient.connect(to: daemon.socketPath)
        let answer = Task { try await client.execute("print.page", argument: 1) }
        _ = try await handler?.nextInvocation()
        #expect(try await reader.value("print.page.executing") == true)
        handler = nil  // closes its socket, as a crash would
        await #expect(throws: PropdClientError.refused(.noHandler(command: "print.page"))) { try await answer.value }
        #expect(try await reader.value("print.page.executing") == false)
        #expect(try await reader.value("print.page.error") == "no handler: the handler disconnected during the execution")
        // With its last handler gone, the command has none.
        await #expect(throws: PropdClientError.refused(.noHandler(command: "print.page"))) {
            try await client.execute("print.page")
        }
    }

    @Test(arguments: StoreKind.available) func aHandlerAnsweringTwiceGetsNoSuchInvocation(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let handler = try await RawHandler(["twice.cmd"], daemon: daemon)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        async let answer = client.execute("twice.cmd")
        let id = try await handler.nextInvocation().id
        #expect(try await complete(daemon, id, result: "first")["error"] == nil)
        let second = try await complete(daemon, id, result: "second")
        #expect(second["error"] == "io.propd.NoSuchInvocation")
        #expect(second["parameters"]?["id"] == .string(id))
        #expect(try await answer.result == "first")
        let third = try await complete(daemon, id, error: "late")
        #expect(third["error"] == "io.propd.NoSuchInvocation")
        #expect(try await client.value("twice.cmd.error") == .null)
    }

    @Test(arguments: StoreKind.available) func completeComesFromAnyOtherConnectionEvenTheExecutors(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let handler = try await RawHandler(["relay.cmd"], daemon: daemon)
        // One connection pipelines the Execute and, once it knows the id, the Complete.
        let socket = try RawSocket(path: daemon.socketPath)
        #expect(socket.call("io.propd.Execute", ["command": "relay.cmd", "argument": "ping"]))
        let invocation = try await handler.nextInvocation()
        #expect(invocation.argument == "ping")
        #expect(socket.call("io.propd.Complete", ["id": .string(invocation.id), "result": "pong"]))
        let executed = try #require(try await socket.receive())
        #expect(executed["parameters"]?["result"] == "pong")
        #expect(executed["parameters"]?["revision"] != nil)
        let completed = try #require(try await socket.receive())
        #expect(completed["error"] == nil)
        #expect(completed["parameters"] == [:])
    }

    @Test func hugeResultsMeetTheMessageLimitWithNamedErrors() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("propd-huge-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/propd.conf"
        try "limits:\n  max-message-bytes: 4096\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try PropdProcess(directory: dir, extraArguments: ["--config", config])
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let reader = try await PropdClient.connect(to: daemon.socketPath)

        // A raw handler whose answer is over the limit: LimitExceeded, and its
        // connection is closed; the execution stays open for a proper answer.
        let raw = try await RawHandler(["big.raw"], daemon: daemon)
        let rawAnswer = Task { try await client.execute("big.raw") }
        let id = try await raw.nextInvocation().id
        let answering = try RawSocket(path: daemon.socketPath)
        #expect(answering.call("io.propd.Complete", ["id": .string(id), "result": .string(String(repeating: "x", count: 5000))]))
        let refused = try #require(try await answering.receive())
        #expect(refused["error"] == "io.propd.LimitExceeded")
        #expect(refused["parameters"]?["limit"] == "max-message-bytes")
        #expect(try await answering.waitForClose())
        #expect(try await reader.value("big.raw.executing") == true)
        #expect(try await complete(daemon, id, error: "result too large")["error"] == nil)
        await #expect(throws: PropdClientError.refused(.commandFailed(command: "big.raw", message: "result too large"))) {
            try await rawAnswer.value
        }

        // PropdClient.serve turns its own too-large answer into a failure that says so.
        let handler = try await swiftHandler(["big.swift"], daemon: daemon) { invocation in
            invocation.argument == "small" ? .string(String(repeating: "y", count: 3000)) : .string(String(repeating: "y", count: 5000))
        }
        defer { handler.cancel() }
        #expect(try await client.execute("big.swift", argument: "small").result == .string(String(repeating: "y", count: 3000)))
        let large = await Task { try await client.execute("big.swift", argument: "large") }.result
        guard case .failure(PropdClientError.refused(.commandFailed(let command, let message))) = large else {
            Issue.record("a result over the limit did not fail as CommandFailed: \(large)")
            return
        }
        #expect(command == "big.swift")
        #expect(message.contains("message limit"), "\(message)")
        #expect(try await reader.value("big.swift.executing") == false)
    }
}
