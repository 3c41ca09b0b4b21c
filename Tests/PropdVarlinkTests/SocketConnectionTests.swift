import Foundation
import PropdJSON
import PropdVarlink
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The blocking client connection against the real server: replies, error
/// replies, several calls on one socket, and each way it fails.
@Suite struct SocketConnectionTests {
    @Test func callsAndErrorsOnOneSocket() async throws {
        let s = try await TestServer.start()
        let c = try VarlinkSocketConnection.connect(to: s.path)
        let big = String(repeating: "x", count: 200_000)  // several reads' worth
        #expect(try c.call("org.example.test.Echo", ["a": 1, "s": .string(big)]) == ["a": 1, "s": .string(big)])
        #expect(throws: VarlinkCallError(name: "org.example.test.Boom", parameters: ["why": "asked"])) {
            try c.call("org.example.test.Fail")
        }
        #expect(throws: VarlinkCallError.methodNotFound("org.example.test.Nope")) { try c.call("org.example.test.Nope") }
        // The connection is still in step after the errors.
        #expect(try c.call("org.example.test.Echo", ["b": true]) == ["b": true])
        c.close()
        #expect(throws: VarlinkConnectionError.self) { try c.call("org.example.test.Echo") }
        try await s.stop()
    }

    @Test func nothingListeningIsCannotConnect() throws {
        let path = temporarySocketPath()
        #expect(throws: VarlinkConnectionError(code: .cannotConnect, path: path, reason: "No such file or directory")) {
            try VarlinkSocketConnection.connect(to: path)
        }
        let long = "/tmp/" + String(repeating: "p", count: 120)
        #expect(throws: VarlinkConnectionError.self) { try VarlinkSocketConnection.connect(to: long) }
    }

    @Test func aReplyOverTheLimitIsMalformed() async throws {
        let s = try await TestServer.start()
        let c = try VarlinkSocketConnection.connect(to: s.path, maximumMessageSize: 70_000)
        #expect(throws: VarlinkConnectionError.self) {
            try c.call("org.example.test.Echo", ["s": .string(String(repeating: "y", count: 100_000))])
        }
        c.close()
        try await s.stop()
    }

    @Test func aServerThatGoesAwayIsConnectionClosed() async throws {
        let s = try await TestServer.start()
        let c = try VarlinkSocketConnection.connect(to: s.path)
        #expect(try c.call("org.example.test.Echo", ["n": 1]) == ["n": 1])
        try await s.stop()
        do {
            _ = try c.call("org.example.test.Echo", ["n": 2])
            Issue.record("a call to a stopped server answered")
        } catch let error as VarlinkConnectionError {
            #expect(error.code == .connectionClosed, "\(error)")
        }
    }
}
