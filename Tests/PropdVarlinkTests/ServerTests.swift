import Foundation
import NIOCore
import PropdJSON
import PropdVarlink
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real server on a real Unix socket, driven by the real client.
@Suite struct ServerTests {
    @Test func getInfoDescribesTheService() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        let info = try await c.call("org.varlink.service.GetInfo")
        #expect(info["vendor"] == "propd tests")
        #expect(info["product"] == "PropdVarlinkTests")
        #expect(info["version"] == "1.0")
        #expect(info["url"] == "https://example.org/propd")
        #expect(info["interfaces"] == ["org.varlink.service", "org.example.test"])
        await c.close()
        try await s.stop()
    }

    @Test func interfaceDescriptionsAreServedVerbatim() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        let test = try await c.call("org.varlink.service.GetInterfaceDescription", ["interface": "org.example.test"])
        #expect(test == ["description": .string(TestInterface.description)])
        let service = try await c.call("org.varlink.service.GetInterfaceDescription", ["interface": "org.varlink.service"])
        #expect(service["description"].map { "\($0)" }?.contains("method GetInterfaceDescription") == true)
        await #expect(throws: VarlinkCallError.interfaceNotFound("org.example.none")) {
            try await c.call("org.varlink.service.GetInterfaceDescription", ["interface": "org.example.none"])
        }
        await #expect(throws: VarlinkCallError.invalidParameter("interface")) {
            try await c.call("org.varlink.service.GetInterfaceDescription", ["interface": 3])
        }
        await c.close()
        try await s.stop()
    }

    @Test func unknownInterfacesAndMethodsAreNamedErrors() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        await #expect(throws: VarlinkCallError.interfaceNotFound("org.example.none")) {
            try await c.call("org.example.none.Get")
        }
        await #expect(throws: VarlinkCallError.methodNotFound("org.example.test.Nope")) {
            try await c.call("org.example.test.Nope")
        }
        await #expect(throws: VarlinkCallError.methodNotImplemented("org.example.test.Missing")) {
            try await c.call("org.example.test.Missing")
        }
        #expect(try await c.call("org.example.test.Echo", ["still": "fine"]) == ["still": "fine"])
        await c.close()
        try await s.stop()
    }

    @Test func pipelinedCallsAreAnsweredInCallOrder() async throws {
        let s = try await TestServer.start()
        let raw = try RawSocket(path: s.path)
        var burst = String.call("org.example.test.Park", #"{"id":1}"#)
        for i in 0..<50 { burst += .call("org.example.test.Echo", #"{"i":\#(i)}"#) }
        burst += .call("org.example.test.Park", #"{"id":2}"#)
        burst += .call("org.example.test.AsyncEcho", #"{"i":"last"}"#)
        raw.send(burst)
        try await withTimeout { await s.lot.waitForResponders([1, 2]) }
        s.lot.responder(2)?.succeed(["parked": 2])
        s.lot.responder(1)?.succeed(["parked": 1])
        let replies = raw.replies(53)
        var expected: [[String: JSONValue]] = [["parked": 1]]
        expected += (0..<50).map { ["i": .integer(Int64($0))] }
        expected += [["parked": 2], ["i": "last"]]
        #expect(replies.map(\.parameters) == expected)
        try await s.stop()
    }

    @Test func answersGivenTogetherReachEachCallerInOrder() async throws {
        let s = try await TestServer.start()
        let a = try await s.connect()
        let b = try await s.connect()
        let first = Task { try await a.pipeline([1, 2].map { VarlinkCall(method: "org.example.test.Park", parameters: ["id": .integer($0)]) }) }
        let second = Task { try await b.call("org.example.test.Park", ["id": 3]) }
        try await withTimeout { await s.lot.waitForResponders([1, 2, 3]) }
        let answers: [(VarlinkResponder, Result<[String: JSONValue], any Error>)] = try [
            (#require(s.lot.responder(2)), .success(["id": 2])),
            (#require(s.lot.responder(3)), .failure(VarlinkCallError.permissionDenied)),
            (#require(s.lot.responder(1)), .success(["id": 1])),
        ]
        VarlinkResponder.answer(answers)
        let results = try await withTimeout { try await first.value }
        #expect(results.map { try? $0.get() } == [["id": 1], ["id": 2]])
        await #expect(throws: VarlinkCallError.permissionDenied) { try await second.value }
        await a.close()
        await b.close()
        try await s.stop()
    }

    @Test func concurrentCallersOnOneConnectionEachGetTheirOwnReply() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<500 {
                group.addTask {
                    let method = i.isMultiple(of: 2) ? "org.example.test.Echo" : "org.example.test.AsyncEcho"
                    let reply = try await c.call(method, ["i": .integer(Int64(i))])
                    #expect(reply == ["i": .integer(Int64(i))])
                }
            }
            try await group.waitForAll()
        }
        await c.close()
        try await s.stop()
    }

    @Test func aPipelinedBatchReturnsEveryOutcomeInOrder() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        var calls = (0..<100).map { VarlinkCall(method: "org.example.test.Echo", parameters: ["i": .integer(Int64($0))]) }
        calls[50] = VarlinkCall(method: "org.example.test.Fail", more: true)
        let results = try await c.pipeline(calls)
        #expect(results.count == 100)
        for (i, result) in results.enumerated() where i != 50 {
            #expect((try? result.get()) == ["i": .integer(Int64(i))])
        }
        #expect(throws: VarlinkCallError(name: "org.example.test.Boom", parameters: ["why": "asked"])) { try results[50].get() }
        #expect(try await c.pipeline([]).isEmpty)
        await c.close()
        await #expect(throws: VarlinkConnectionError.self) { try await c.pipeline(calls) }
        try await s.stop()
    }

    @Test func aMoreCallStreamsUntilTheLastReply() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        let replies = try await withTimeout {
            var replies: [[String: JSONValue]] = []
            for try await reply in c.stream("org.example.test.Count", ["n": 5]) { replies.append(reply) }
            return replies
        }
        #expect(replies == (0..<5).map { ["i": .integer(Int64($0))] })
        // The connection is free again once the stream ended.
        #expect(try await c.call("org.example.test.Echo", ["after": true]) == ["after": true])
        await c.close()
        try await s.stop()
    }

    @Test func aStreamEndedWithAnErrorThrowsIt() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        let stream = c.stream("org.example.test.Hold", ["id": 4])
        let server = try await withTimeout { await s.lot.waitForStream(4) }
        server.send(["tick": 1])
        server.finish(throwing: VarlinkCallError(name: "org.example.test.SlowConsumer", parameters: ["revision": 9]))
        var ticks: [[String: JSONValue]] = []
        await #expect(throws: VarlinkCallError(name: "org.example.test.SlowConsumer", parameters: ["revision": 9])) {
            for try await reply in stream { ticks.append(reply) }
        }
        #expect(ticks == [["tick": 1]])
        await c.close()
        try await s.stop()
    }

    @Test func aStreamSeesBackpressureWhenItsClientStopsReading() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.outboundHighWaterMark = 64 * 1024
        configuration.outboundLowWaterMark = 16 * 1024
        let s = try await TestServer.start(configuration: configuration)
        let raw = try RawSocket(path: s.path)
        raw.send(.call("org.example.test.Hold", #"{"id":1}"#, more: true))
        let stream = try await withTimeout { await s.lot.waitForStream(1) }
        let (changes, changed) = AsyncStream.makeStream(of: Bool.self)
        stream.onWritabilityChange { changed.yield($0) }
        let payload = JSONValue.string(String(repeating: "x", count: 1024))
        let sent = try await stream.eventLoop.submit {
            var sent = 0
            while stream.isWritable, sent < 100_000 {
                stream.send(["tick": payload])
                sent += 1
            }
            return sent
        }.get()
        #expect(sent < 100_000, "unsent bytes pass the high-water mark")
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == false)
        #expect(raw.replies(sent).count == sent)
        #expect(await iterator.next() == true, "drained below the low-water mark")
        #expect(try await stream.bufferedBytes() < configuration.outboundLowWaterMark)
        stream.finish()
        #expect(raw.replies(1) == [VarlinkReply()])
        try await s.stop()
    }

    /// Calls answered at once with a large reply start only as replies
    /// leave, not a whole window of started calls at once when a slow
    /// reader makes room: what the server holds for that reader stays near
    /// the outbound high-water mark (the issue: 1,000 pipelined Gets of a
    /// 1 MiB value took RSS 135 MiB above idle). Each reply here is larger
    /// than the high-water mark (256 KiB).
    @Test func callsAnsweredAtOnceStartOnlyAsTheirRepliesLeave() async throws {
        let s = try await TestServer.start()
        let raw = try RawSocket(path: s.path)
        let calls = 60
        raw.send(String(repeating: String.call("org.example.test.Big", #"{"bytes":300000}"#), count: calls))
        let (read, ahead) = readOneByOne(calls, from: raw, counting: s.lot)
        #expect(read == calls)
        #expect(ahead <= 8, "\(ahead) replies were made ahead of the reader")
        try await s.stop()
    }

    /// Behind a call still running (a write), calls of a method marked
    /// `startingAfterEarlierCalls` (a read) wait for it, then start one at
    /// a time as their replies leave, instead of all being made at once
    /// when the running call ends.
    @Test func readsBehindARunningCallStartOnlyAsTheirRepliesLeave() async throws {
        let s = try await TestServer.start()
        let raw = try RawSocket(path: s.path)
        let calls = 60
        raw.send(
            String.call("org.example.test.Park", #"{"id":1}"#)
                + String(repeating: String.call("org.example.test.BigRead", #"{"bytes":300000}"#), count: calls))
        try await withTimeout { await s.lot.waitForResponders([1]) }
        s.lot.responder(1)?.succeed(["parked": 1])
        #expect(raw.replies(1).first?.parameters == ["parked": 1])
        let (read, ahead) = readOneByOne(calls, from: raw, counting: s.lot)
        #expect(read == calls)
        #expect(ahead <= 8, "\(ahead) replies were made ahead of the reader")
        try await s.stop()
    }

    /// Reads up to `calls` replies one at a time; how many were read, and
    /// the most replies the server had made beyond those read.
    private func readOneByOne(_ calls: Int, from raw: RawSocket, counting lot: ParkingLot) -> (read: Int, ahead: Int) {
        var read = 0
        var ahead = 0
        while read < calls, raw.replies(1).count == 1 {
            read += 1
            ahead = max(ahead, lot.bigCallCount - read)
        }
        return (read, ahead)
    }

    @Test func aStreamingMethodCalledWithoutMoreIsExpectedMore() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        await #expect(throws: VarlinkCallError.expectedMore) { try await c.call("org.example.test.Count", ["n": 2]) }
        await c.close()
        try await s.stop()
    }

    @Test func onewayCallsRunAndAreNotAnswered() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        try await c.callOneway("org.example.test.Park", ["id": 5])
        try await withTimeout { await s.lot.waitForResponders([5]) }
        s.lot.responder(5)?.succeed(["ignored": true])
        // The next reply on the connection belongs to the next call.
        #expect(try await c.call("org.example.test.Echo", ["n": 1]) == ["n": 1])
        await c.close()
        try await s.stop()
    }

    @Test func aClientVanishingMidStreamDoesNotDisturbOthers() async throws {
        let s = try await TestServer.start()
        let a = try await s.connect()
        let b = try await s.connect()
        let stream = a.stream("org.example.test.Hold", ["id": 1])
        let server = try await withTimeout { await s.lot.waitForStream(1) }
        server.send(["tick": 1])
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == ["tick": 1])
        await a.close()
        try await withTimeout { await s.lot.waitForTermination(1) }
        server.send(["tick": 2])  // dropped: the stream has ended
        #expect(server.isEnded)
        #expect(try await b.call("org.example.test.Echo", ["b": "fine"]) == ["b": "fine"])
        await b.close()
        try await s.stop()
    }

    @Test func peerCredentialsAreThoseOfTheConnectingProcess() async throws {
        let s = try await TestServer.start()
        let c = try await s.connect()
        let me = try await c.call("org.example.test.WhoAmI")
        #expect(me["uid"] == .integer(Int64(getuid())))
        #expect(me["gid"] == .integer(Int64(getgid())))
        #expect(me["pid"] == .integer(Int64(getpid())))
        await c.close()
        try await s.stop()
    }
}
