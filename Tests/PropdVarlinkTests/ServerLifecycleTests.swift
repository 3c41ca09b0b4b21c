import Foundation
import NIOCore
import PropdJSON
import PropdVarlink
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Listening, limits, bad input and shutdown of a real server on a real socket.
@Suite struct ServerLifecycleTests {
    @Test func garbageClosesOnlyThatConnection() async throws {
        let s = try await TestServer.start()
        let good = try await s.connect()
        let raw = try RawSocket(path: s.path)
        raw.send("this is not json\0")
        let replies = raw.replies(1)
        #expect(replies.map(\.error) == ["org.varlink.service.InvalidParameter"])
        #expect(raw.isClosedByPeer())
        #expect(try await good.call("org.example.test.Echo", ["ok": 1]) == ["ok": 1])
        await good.close()
        try await s.stop()
    }

    @Test func anOversizedMessageClosesOnlyThatConnection() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maximumMessageSize = 1024
        let s = try await TestServer.start(configuration: configuration)
        let good = try await s.connect()
        let raw = try RawSocket(path: s.path)
        raw.send(#"{"method":"org.example.test.Echo","parameters":{"v":""# + String(repeating: "x", count: 4096))
        #expect(raw.replies(1).map(\.error) == ["org.varlink.service.InvalidParameter"])
        #expect(raw.isClosedByPeer())
        #expect(try await good.call("org.example.test.Echo", ["ok": 1]) == ["ok": 1])
        await good.close()
        try await s.stop()
    }

    /// A message that arrived in many reads and completed stops its timer:
    /// the connection outlives `messageTimeout` however long it stays idle.
    @Test func aCompletedLargeMessageLeavesNoTimerRunning() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.messageTimeout = .seconds(1)
        let s = try await TestServer.start(configuration: configuration)
        let c = try await s.connect()
        // Far more than one read (NIO reads at most 64 KiB at a time).
        let large: [String: JSONValue] = ["text": .string(String(repeating: "x", count: 512 * 1024))]
        #expect(try await c.call("org.example.test.Echo", large) == large)
        // Waiting out the deadline is the scenario (nothing else can show a
        // timer that should not be running).
        try await Task.sleep(for: .seconds(3))
        #expect(try await c.call("org.example.test.Echo", ["ok": 1]) == ["ok": 1])
        await c.close()
        try await s.stop()
    }

    /// The timeout is per message: a client whose messages each complete in
    /// time is not cut off because the next one always began before the
    /// last ended (the decoder never empty for longer than the timeout).
    @Test func theMessageTimeoutTimesEachMessage() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.messageTimeout = .milliseconds(2500)
        let s = try await TestServer.start(configuration: configuration)
        let path = s.path
        let calls = (1...4).map { #"{"method":"org.example.test.Echo","parameters":{"value":{"n":\#($0)}}}"# + "\0" }
        // Each message arrives in two parts a second apart, the second part
        // carrying the next message's first: 4 s with a message incomplete,
        // none incomplete for more than 1 s. The pauses are the scenario; a
        // thread of its own keeps them, whatever the cooperative pool runs.
        let errors = await withCheckedContinuation { (done: CheckedContinuation<[String?], Never>) in
            Thread.detachNewThread {
                guard let raw = try? RawSocket(path: path) else { return done.resume(returning: []) }
                raw.send(String(calls[0].prefix(20)))
                for index in calls.indices {
                    Thread.sleep(forTimeInterval: 1)
                    let next = index + 1 < calls.count ? String(calls[index + 1].prefix(20)) : ""
                    raw.send(String(calls[index].dropFirst(20)) + next)
                }
                done.resume(returning: raw.replies(calls.count).map(\.error))
            }
        }
        #expect(errors == [nil, nil, nil, nil])
        try await s.stop()
    }

    /// A server that admits one connection, and that connection, answered once.
    func startWithItsOnlyConnection() async throws -> (TestServer, VarlinkConnection) {
        var configuration = VarlinkServerConfiguration()
        configuration.maximumConnections = 1
        configuration.connectionLimitReply = VarlinkCallError(name: "org.example.LimitExceeded", parameters: ["maximum": 1])
        let s = try await TestServer.start(configuration: configuration)
        let first = try await s.connect()
        #expect(try await first.call("org.example.test.Echo") == [:])
        return (s, first)
    }

    @Test func connectionsBeyondTheLimitAreRefused() async throws {
        let (s, first) = try await startWithItsOnlyConnection()
        let second = try await s.connect()
        await #expect(throws: VarlinkCallError(name: "org.example.LimitExceeded", parameters: ["maximum": 1])) {
            try await second.call("org.example.test.Echo")
        }
        #expect(s.server.connectionCount == 1)
        #expect(try await first.call("org.example.test.Echo", ["still": true]) == ["still": true])
        await first.close()
        await second.close()
        try await s.stop()
    }

    @Test func aRefusedClientThatStaysDoesNotRefuseTheNext() async throws {
        let (s, first) = try await startWithItsOnlyConnection()
        // Refused, and never calls: its refusal stays unanswered, its socket open.
        let lingering = try await s.connect()
        // The server decides once it has read the client's credentials: had
        // the first one left before that, this one would be admitted.
        try await withTimeout {
            while s.server.refusedConnectionCount == 0 {
                try Task.checkCancellation()
                await Task.yield()
            }
        }
        await first.close()
        // The first one's close reaches the server: the next is admitted.
        let next = try await withTimeout {
            while true {
                try Task.checkCancellation()
                let candidate = try await s.connect()
                if (try? await candidate.call("org.example.test.Echo", ["n": 1])) == ["n": 1] { return candidate }
                await candidate.close()
                await Task.yield()
            }
        }
        #expect(s.server.connectionCount == 1)
        await next.close()
        await lingering.close()
        try await s.stop()
    }

    @Test func gracefulShutdownLetsInFlightCallsFinish() async throws {
        var configuration = VarlinkServerConfiguration()
        // Generous: the call is answered only after the late connection is
        // refused, which on a loaded machine can take longer than the default.
        configuration.gracefulShutdownTimeout = .seconds(120)
        let s = try await TestServer.start(configuration: configuration)
        let c = try await s.connect()
        let pending = Task { try await c.call("org.example.test.Park", ["id": 1]) }
        try await withTimeout { await s.lot.waitForResponders([1]) }
        s.server.beginGracefulShutdown()
        // Not served any more: either the listener is already closed, or the
        // connection it still accepted is closed unanswered.
        await #expect(throws: VarlinkConnectionError.self) {
            let late = try await VarlinkConnection.connect(to: s.path)
            _ = try await late.call("org.example.test.Echo")
        }
        s.lot.responder(1)?.succeed(["finished": true])
        #expect(try await withTimeout { try await pending.value } == ["finished": true])
        try await withTimeout { try await s.task.value }
        #expect(!FileManager.default.fileExists(atPath: s.path), "the socket file is removed")
    }

    @Test func gracefulShutdownEndsLiveStreamsAtOnce() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.gracefulShutdownTimeout = .seconds(60)  // must not be what ends it
        let s = try await TestServer.start(configuration: configuration)
        let c = try await s.connect()
        let stream = c.stream("org.example.test.Hold", ["id": 1])
        _ = try await withTimeout { await s.lot.waitForStream(1) }
        try await s.stop()
        await s.lot.waitForTermination(1)
        await #expect(throws: VarlinkConnectionError.self) {
            for try await _ in stream {}
        }
    }

    @Test func gracefulShutdownIsBoundedByItsTimeout() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.gracefulShutdownTimeout = .milliseconds(100)
        let s = try await TestServer.start(configuration: configuration)
        let c = try await s.connect()
        let pending = Task { try await c.call("org.example.test.Park", ["id": 1]) }
        try await withTimeout { await s.lot.waitForResponders([1]) }
        try await s.stop()  // the parked call is never answered
        await #expect {
            try await pending.value
        } throws: { error in
            (error as? VarlinkConnectionError)?.code == .connectionClosed
        }
    }

    @Test func theSocketFileGetsTheConfiguredMode() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.socketFileMode = 0o600
        let s = try await TestServer.start(configuration: configuration)
        var info = stat()
        #expect(stat(s.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        try await s.stop()
    }

    @Test func aStaleSocketFileIsReplaced() async throws {
        let path = temporarySocketPath()
        let fd = try boundUnixSocket(path)
        close(fd)  // what a crashed daemon leaves behind: the file, nobody listening
        #expect(FileManager.default.fileExists(atPath: path))
        let s = try await TestServer.start(path: path)
        let c = try await s.connect()
        #expect(try await c.call("org.example.test.Echo", ["x": 1]) == ["x": 1])
        await c.close()
        try await s.stop()
    }

    @Test func anActivatedSocketIsServed() async throws {
        let path = temporarySocketPath()
        let fd = try boundUnixSocket(path)
        #expect(listen(fd, 16) == 0)
        let s = try await TestServer.start(address: .activated(fileDescriptor: fd), path: path)
        let c = try await s.connect()
        #expect(try await c.call("org.varlink.service.GetInfo")["product"] == "PropdVarlinkTests")
        await c.close()
        try await s.stop()
        unlink(path)
    }

    @Test func connectingToNothingNamesThePath() async throws {
        let path = temporarySocketPath()
        await #expect {
            try await VarlinkConnection.connect(to: path)
        } throws: { error in
            guard let error = error as? VarlinkConnectionError else { return false }
            return error.code == .cannotConnect && error.path == path
        }
    }

    @Test func callsOnAClosedConnectionFailAsClosed() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        await c.close()
        await #expect {
            try await c.call("org.example.test.Echo")
        } throws: { error in
            (error as? VarlinkConnectionError)?.code == .connectionClosed
        }
        try await s.stop()
    }

    @Test func aServerThatCannotListenSaysWhere() async throws {
        let path = "/nonexistent-dir-\(getpid())/x.sock"
        let server = try VarlinkServer(
            address: .path(path), info: TestInterface.info, interfaces: [], logger: .init(label: "t"))
        await #expect {
            try await server.run()
        } throws: { error in
            guard let error = error as? VarlinkServerError else { return false }
            return error.code == .cannotListen && error.address == .path(path)
        }
    }

    @Test func collidingRegistrationsAreRefused() {
        let a = VarlinkInterface(name: "org.example.a", description: "interface org.example.a\n", methods: [])
        #expect(throws: VarlinkRegistrationError(code: .duplicateInterface, name: "org.example.a")) {
            try VarlinkServer(address: .path("/tmp/x"), info: TestInterface.info, interfaces: [a, a], logger: .init(label: "t"))
        }
        let service = VarlinkInterface(name: "org.varlink.service", description: "", methods: [])
        #expect(throws: VarlinkRegistrationError(code: .reservedInterface, name: "org.varlink.service")) {
            try VarlinkServer(address: .path("/tmp/x"), info: TestInterface.info, interfaces: [service], logger: .init(label: "t"))
        }
        let twice = VarlinkInterface(
            name: "org.example.b", description: "",
            methods: [.synchronous("M") { _, _ in [:] }, .synchronous("M") { _, _ in [:] }])
        #expect(throws: VarlinkRegistrationError(code: .duplicateMethod, name: "org.example.b.M")) {
            try VarlinkServer(address: .path("/tmp/x"), info: TestInterface.info, interfaces: [twice], logger: .init(label: "t"))
        }
    }
}
