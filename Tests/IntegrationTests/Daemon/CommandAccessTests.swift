import PropdClient
import PropdCore
import Testing

/// Execute, Serve and Complete need write access to the command's key
/// (CONTRACT 6.2), checked with the peer's credentials like every call.
@Suite struct CommandAccessTests {
    @Test(.enabled(if: AccessTests.enabled, "needs root, setpriv, useradd and /usr/bin/python3 to act as two other users"))
    func commandsNeedWriteAccessToTheirKey() async throws {
        let f = try await AccessTests.Fixture("access-cmd")
        let a = try f.peer(f.a)
        let b = try f.peer(f.b)
        let socket = f.paths.socket
        let before = try await f.root.list("none").revision

        // a writes a.** only.
        #expect(try await a.call("Execute", ["command": "b.cmd"]).isDenied("b.cmd"))
        #expect(try await a.call("Serve", ["commands": ["a.cmd", "b.cmd"]], more: true).isDenied("b.cmd"))
        // Refused before anything: not even the command's keys were created.
        #expect(try await f.root.list("none").revision == before)
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "b.cmd.executing"))) { try await f.root.get(["b.cmd.executing"]) }

        // Allowed: a may execute its own commands (nobody serves this one).
        #expect(try await a.call("Execute", ["command": "a.none"]).errorName == "io.propd.NoHandler")

        // Only who may write b.cmd may answer its invocation.
        let handler = try await RawHandler(["b.cmd"], socket: socket)
        let root = f.root
        let answer = Task { try await root.execute("b.cmd") }
        let invocation = try await handler.nextInvocation()
        #expect(try await a.call("Complete", ["id": .string(invocation.id), "result": "forged"]).isDenied("b.cmd"))
        #expect(try await b.call("Complete", ["id": .string(invocation.id), "result": "genuine"])["error"] == nil)
        #expect(try await answer.value.result == "genuine")
        try await f.stop()
    }
}
