import Dispatch
import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Synchronization
import Testing

/// A command handler speaking the wire itself: its `Serve` stream on one
/// socket, so a test decides when (and whether) to answer, and can vanish
/// mid-execution by closing the socket.
final class RawHandler {
    let stream: RawSocket
    let probe: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Serves `commands`, and returns once the daemon has registered the
    /// handler: it also serves a probe command of its own, whose keys the
    /// daemon creates after adding the handler, so their event is the signal.
    convenience init(_ commands: [String], daemon: PropdProcess) async throws {
        try await self.init(commands, socket: daemon.socketPath)
    }

    init(_ commands: [String], socket: String) async throws {
        probe = "probe.h" + UUID().uuidString.prefix(8).lowercased()
        let observer = try await PropdClient.connect(to: socket)
        let events = EventCollector(observer.observe([probe + ".executing"]))
        _ = try await events.synced()
        stream = try RawSocket(path: socket)
        let all: [JSONValue] = (commands + [probe]).map { .string($0) }
        guard stream.call("io.propd.Serve", ["commands": .array(all)], more: true) else {
            throw Failure(description: "cannot send Serve")
        }
        _ = try await events.take { $0.contains { $0.key == self.probe + ".executing" } }
        await observer.close()
    }

    /// The next invocation handed to this handler.
    func nextInvocation(timeout: Duration = .seconds(30)) async throws -> (id: String, command: String, argument: JSONValue?) {
        guard let reply = try await stream.receive(timeout: timeout) else { throw Failure(description: "the Serve stream closed") }
        guard reply["continues"] == true, case .object(let invocation)? = reply["parameters"]?["invocation"],
            case .string(let id)? = invocation["id"], case .string(let command)? = invocation["command"]
        else { throw Failure(description: "not an invocation: \(reply)") }
        return (id, command, invocation["argument"])
    }
}

/// One call on its own connection, and its whole reply.
func rawCall(_ daemon: PropdProcess, _ method: String, _ parameters: JSONValue, more: Bool = false) async throws -> [String: JSONValue] {
    try await rawCall(daemon.socketPath, method, parameters, more: more)
}

func rawCall(_ path: String, _ method: String, _ parameters: JSONValue, more: Bool = false) async throws -> [String: JSONValue] {
    let socket = try RawSocket(path: path)
    guard socket.call("io.propd." + method, parameters, more: more), let reply = try await socket.receive() else {
        throw RawHandler.Failure(description: "no reply to \(method)")
    }
    return reply
}

/// `Complete` on a connection of its own; the whole reply.
func complete(_ daemon: PropdProcess, _ id: String, result: JSONValue? = nil, error: String? = nil) async throws -> [String: JSONValue] {
    try await complete(daemon.socketPath, id, result: result, error: error)
}

func complete(_ path: String, _ id: String, result: JSONValue? = nil, error: String? = nil) async throws -> [String: JSONValue] {
    var parameters: [String: JSONValue] = ["id": .string(id)]
    if let result { parameters["result"] = result }
    if let error { parameters["error"] = .string(error) }
    return try await rawCall(path, "Complete", .object(parameters))
}

/// Serves `commands` with a Swift handler in a task (PropdClient.serve),
/// registered (see ``RawHandler``) when this returns. Cancel the task to stop.
func swiftHandler(
    _ commands: [String], daemon: PropdProcess, parallel: Int = 1,
    _ body: @escaping @Sendable (Invocation) async throws -> JSONValue?
) async throws -> Task<Void, any Error> {
    let probe = "probe.s" + UUID().uuidString.prefix(8).lowercased()
    let observer = try await PropdClient.connect(to: daemon.socketPath)
    let events = EventCollector(observer.observe([probe + ".executing"]))
    _ = try await events.synced()
    let client = try await PropdClient.connect(to: daemon.socketPath)
    let task = Task {
        try await client.serve(commands + [probe], parallel: parallel, handler: body)
    }
    _ = try await events.take { $0.contains { $0.key == probe + ".executing" } }
    await observer.close()
    return task
}

extension PropdClient {
    /// One property's value (nil when the key does not exist).
    func value(_ key: String) async throws -> JSONValue? {
        do {
            return try await get([key])[0].value
        } catch PropdClientError.refused(.noSuchKey) {
            return nil
        }
    }

    /// The store's revision now.
    func revision() async throws -> Revision {
        try await list("none.such.key").revision
    }
}
