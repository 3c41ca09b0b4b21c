import Logging
import NIOCore
import NIOEmbedded
import PropdJSON
import Testing

@testable import PropdVarlink

/// The dispatcher driven without sockets: bytes in, replies out.
@Suite struct ConnectionHandlerTests {
    /// Counts the reads that reach the socket end of the pipeline.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = NIOAny
        var count = 0
        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    final class Harness {
        let channel = EmbeddedChannel()
        let reads = ReadCounter()
        let lot = ParkingLot()
        let mailbox: LoopMailbox
        private var received = ByteBuffer()

        init(
            configuration: VarlinkServerConfiguration = VarlinkServerConfiguration(),
            partialBudget: VarlinkPartialMessageBudget? = nil
        ) throws {
            let registry = try VarlinkRegistry(info: TestInterface.info, interfaces: [TestInterface.interface(lot: lot)])
            let channel = self.channel
            let mailbox = LoopMailbox(eventLoop: channel.eventLoop)
            self.mailbox = mailbox
            let connection = VarlinkConnectionContext(
                id: 1, peer: nil, logger: Logger(label: "test"), eventLoop: channel.eventLoop,
                mailbox: mailbox, closeFuture: channel.closeFuture)
            try channel.pipeline.syncOperations.addHandlers([
                reads,
                VarlinkConnectionHandler(registry: registry, configuration: configuration, partialBudget: partialBudget) {
                    _ in connection
                },
            ])
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        /// Sends raw text (one read burst), then lets scheduled flushes run.
        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
            channel.embeddedEventLoop.run()
        }

        func send(bytes: [UInt8]) throws {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
            channel.embeddedEventLoop.run()
        }

        /// Every complete reply written so far, parsed.
        func replies() throws -> [VarlinkReply] {
            channel.embeddedEventLoop.run()
            while var chunk = try channel.readOutbound(as: ByteBuffer.self) { received.writeBuffer(&chunk) }
            var replies: [VarlinkReply] = []
            while let nul = received.readableBytesView.firstIndex(of: 0) {
                let frame = received.readSlice(length: nul - received.readableBytesView.startIndex)!
                received.moveReaderIndex(forwardBy: 1)
                replies.append(try VarlinkReply(message: VarlinkWireFormat.parseMessage(frame)))
            }
            return replies
        }
    }

    @Test func aSynchronousCallIsAnswered() throws {
        let h = try Harness()
        try h.send(#"{"method":"org.example.test.Echo","parameters":{"value":21}}"# + "\0")
        #expect(try h.replies() == [VarlinkReply(parameters: ["value": 21])])
    }

    @Test func repliesFollowCallOrderWhenHandlersFinishOutOfOrder() throws {
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0"
                + #"{"method":"org.example.test.Park","parameters":{"id":2}}"# + "\0"
                + #"{"method":"org.example.test.Echo","parameters":{"id":3}}"# + "\0")
        #expect(try h.replies().isEmpty)
        h.lot.responder(2)?.succeed(["id": 2])
        #expect(try h.replies().isEmpty, "call 2 waits for call 1")
        h.lot.responder(1)?.succeed(["id": 1])
        #expect(try h.replies().map(\.parameters) == [["id": 1], ["id": 2], ["id": 3]])
    }

    /// A reply whose parameters write their own bytes leaves in call order,
    /// whether its call is first in line when answered (written at once) or
    /// waits behind an earlier one; a oneway call's answer writes nothing.
    @Test func selfEncodingRepliesFollowCallOrderFirstInLineOrNot() throws {
        struct IDReply: JSONObjectEncodable {
            var id: Int64
            func encodeJSONObject(into out: inout [UInt8]) {
                out.append(contentsOf: #"{"id":"#.utf8)
                JSONValue.integer(id).encode(into: &out)
                out.append(UInt8(ascii: "}"))
            }
        }
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0"
                + #"{"method":"org.example.test.Park","parameters":{"id":2}}"# + "\0"
                + #"{"method":"org.example.test.Park","parameters":{"id":3},"oneway":true}"# + "\0"
                + #"{"method":"org.example.test.Park","parameters":{"id":4}}"# + "\0")
        h.lot.responder(2)?.succeed(IDReply(id: 2))
        #expect(try h.replies().isEmpty, "call 2 waits for call 1")
        h.lot.responder(1)?.succeed(IDReply(id: 1))
        h.lot.responder(1)?.succeed(IDReply(id: 99))
        h.lot.responder(3)?.succeed(IDReply(id: 3))
        #expect(try h.replies().map(\.parameters) == [["id": 1], ["id": 2]])
        h.lot.responder(4)?.succeed(IDReply(id: 4))
        #expect(try h.replies().map(\.parameters) == [["id": 4]])
    }

    @Test func answeringTwiceIsIgnored() throws {
        let h = try Harness()
        try h.send(#"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0")
        h.lot.responder(1)?.succeed(["id": 1])
        h.lot.responder(1)?.succeed(["id": 99])
        try h.send(#"{"method":"org.example.test.Echo","parameters":{"id":2}}"# + "\0")
        #expect(try h.replies().map(\.parameters) == [["id": 1], ["id": 2]])
    }

    /// Calls answered on the loop inside the mailbox's flush round (a
    /// delivery, a tick's commit) reach the socket together when the round
    /// ends, with no task of their own left to run.
    @Test func repliesAnsweredInAFlushRoundAreFlushedOnceWhenItEnds() throws {
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0"
                + #"{"method":"org.example.test.Park","parameters":{"id":2}}"# + "\0")
        var outboundInsideTheRound: Result<ByteBuffer?, any Error> = .success(nil)
        h.mailbox.flushingOnce {
            h.lot.responder(1)?.succeed(["id": 1])
            // A round inside a round (a delivery inside a commit) flushes
            // nothing when it returns: the outermost does.
            h.mailbox.flushingOnce { h.lot.responder(2)?.succeed(["id": 2]) }
            outboundInsideTheRound = Result { try h.channel.readOutbound(as: ByteBuffer.self) }
        }
        #expect(try outboundInsideTheRound.get() == nil, "nothing flushed inside the round")
        // Read before the loop runs again: no task flushes them later.
        var flushed = ByteBuffer()
        while var chunk = try h.channel.readOutbound(as: ByteBuffer.self) { flushed.writeBuffer(&chunk) }
        let replies = try flushed.readableBytesView.split(separator: 0).map {
            try VarlinkReply(message: VarlinkWireFormat.parseMessage(ByteBuffer(bytes: $0)))
        }
        #expect(replies.map(\.parameters) == [["id": 1], ["id": 2]], "both flushed as the round ended")
    }

    /// Inside a round, the replies answered so far can be sent at once (a
    /// tick's commit that has answered its callers); those answered after
    /// wait for the round's end as before.
    @Test func aRoundFlushesWhatItAnsweredSoFarWhenAsked() throws {
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0"
                + #"{"method":"org.example.test.Park","parameters":{"id":2}}"# + "\0")
        var sentWhenAsked: [VarlinkReply] = []
        var sentAfter: [VarlinkReply] = []
        h.mailbox.flushingOnce {
            h.lot.responder(1)?.succeed(["id": 1])
            h.mailbox.flushRoundSoFar()
            sentWhenAsked = (try? h.replies()) ?? []
            h.lot.responder(2)?.succeed(["id": 2])
            sentAfter = (try? h.replies()) ?? []
        }
        #expect(sentWhenAsked == [VarlinkReply(parameters: ["id": 1])])
        #expect(sentAfter.isEmpty, "an answer given after waits for the round's end")
        #expect(try h.replies() == [VarlinkReply(parameters: ["id": 2])])
    }

    /// A streaming call (`Hold`, id 7) with an `Echo` of `{"after":true}` sent behind it.
    private func streamHoldingAnEcho(_ h: Harness) throws -> VarlinkReplyStream {
        try h.send(
            #"{"method":"org.example.test.Hold","parameters":{"id":7},"more":true}"# + "\0"
                + #"{"method":"org.example.test.Echo","parameters":{"after":true}}"# + "\0")
        return try #require(h.lot.stream(7))
    }

    @Test func aStreamHoldsLaterCallsUntilItEnds() throws {
        let h = try Harness()
        let stream = try streamHoldingAnEcho(h)
        stream.send(["tick": 1])
        stream.send(["tick": 2])
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["tick": 1], continues: true),
            VarlinkReply(parameters: ["tick": 2], continues: true),
        ])
        stream.finish(["tick": 3])
        #expect(try h.replies() == [VarlinkReply(parameters: ["tick": 3]), VarlinkReply(parameters: ["after": true])])
        #expect(stream.isEnded)
    }

    @Test func framesAStreamIsGivenAreSentVerbatimBetweenItsOtherReplies() throws {
        let h = try Harness()
        let stream = try streamHoldingAnEcho(h)
        let frames = (1...3).map { tick in
            VarlinkWireFormat.continuingReplyFrame(reservingCapacity: 0) { $0.append(contentsOf: #"{"tick":\#(tick)}"#.utf8) }
        }
        stream.send(["tick": 0])
        stream.send(frames: frames)
        stream.finish(["tick": 4])
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["tick": 0], continues: true),
            VarlinkReply(parameters: ["tick": 1], continues: true),
            VarlinkReply(parameters: ["tick": 2], continues: true),
            VarlinkReply(parameters: ["tick": 3], continues: true),
            VarlinkReply(parameters: ["tick": 4]),
            VarlinkReply(parameters: ["after": true]),
        ])
        stream.send(frames: frames)  // dropped: the stream has ended
        #expect(try h.replies().isEmpty)
    }

    @Test func framesSentAfterTheRoundGoOutInOrderOnlyOnceTheRoundEndsAndAtOnceOutsideOne() throws {
        let h = try Harness()
        let stream = try streamHoldingAnEcho(h)
        let frames = (1...3).map { tick in
            VarlinkWireFormat.continuingReplyFrame(reservingCapacity: 0) { $0.append(contentsOf: #"{"tick":\#(tick)}"#.utf8) }
        }
        var sentDuringTheRound: [VarlinkReply] = []
        h.mailbox.flushingOnce {
            h.mailbox.sendAfterRound(stream, frame: frames[0])
            h.mailbox.sendAfterRound(stream, frame: frames[1])
            sentDuringTheRound = (try? h.replies()) ?? []
        }
        #expect(sentDuringTheRound.isEmpty)
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["tick": 1], continues: true), VarlinkReply(parameters: ["tick": 2], continues: true),
        ])
        h.mailbox.sendAfterRound(stream, frame: frames[2])
        #expect(try h.replies() == [VarlinkReply(parameters: ["tick": 3], continues: true)])
    }

    @Test func aMoreCallWaitsForEarlierCalls() throws {
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0"
                + #"{"method":"org.example.test.Count","parameters":{"n":2},"more":true}"# + "\0")
        #expect(try h.replies().isEmpty)
        h.lot.responder(1)?.succeed(["id": 1])
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["id": 1]),
            VarlinkReply(parameters: ["i": 0], continues: true),
            VarlinkReply(parameters: ["i": 1]),
        ])
    }

    @Test func aStreamingMethodWithoutMoreIsExpectedMore() throws {
        let h = try Harness()
        try h.send(#"{"method":"org.example.test.Count","parameters":{"n":2}}"# + "\0")
        #expect(try h.replies() == [VarlinkReply(error: .expectedMore)])
    }

    @Test func onewayCallsGetNoReplyButStillRun() throws {
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1},"oneway":true}"# + "\0"
                + #"{"method":"org.example.test.Nope","oneway":true}"# + "\0"
                + #"{"method":"org.example.test.Echo","parameters":{"id":2}}"# + "\0")
        #expect(h.lot.responder(1) != nil)
        h.lot.responder(1)?.succeed(["id": 1])
        #expect(try h.replies().map(\.parameters) == [["id": 2]])
    }

    @Test func unknownNamesGetTheStandardErrors() throws {
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.nothing.Get"}"# + "\0" + #"{"method":"org.example.test.Nope"}"# + "\0"
                + #"{"method":"org.example.test.Missing"}"# + "\0" + #"{"method":"NoDot"}"# + "\0")
        #expect(try h.replies() == [
            VarlinkReply(error: .interfaceNotFound("org.example.nothing")),
            VarlinkReply(error: .methodNotFound("org.example.test.Nope")),
            VarlinkReply(error: .methodNotImplemented("org.example.test.Missing")),
            VarlinkReply(error: .interfaceNotFound("NoDot")),
        ])
    }

    @Test func aCallOfTheWrongShapeIsInvalidParameterAndTheConnectionGoesOn() throws {
        let h = try Harness()
        try h.send(#"{"parameters":{}}"# + "\0" + #"{"method":"a.B","parameters":[1]}"# + "\0"
            + #"{"method":"org.example.test.Echo","parameters":{"ok":true}}"# + "\0")
        #expect(try h.replies() == [
            VarlinkReply(error: .invalidParameter("method")),
            VarlinkReply(error: .invalidParameter("parameters")),
            VarlinkReply(parameters: ["ok": true]),
        ])
        #expect(h.channel.isActive)
    }

    @Test func handlerErrorsBecomeErrorReplies() throws {
        let h = try Harness()
        try h.send(#"{"method":"org.example.test.Fail"}"# + "\0" + #"{"method":"org.example.test.Crash"}"# + "\0")
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["why": "asked"], error: "org.example.test.Boom"),
            VarlinkReply(error: "org.varlink.service.InternalError"),
        ])
    }

    @Test func upgradeIsRefused() throws {
        let h = try Harness()
        try h.send(#"{"method":"org.example.test.Echo","upgrade":true}"# + "\0")
        #expect(try h.replies() == [VarlinkReply(error: .invalidParameter("upgrade"))])
    }

    @Test func malformedJSONIsExplainedThenClosesAfterEarlierReplies() throws {
        let h = try Harness()
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0" + "not json\0"
                + #"{"method":"org.example.test.Echo"}"# + "\0")
        #expect(try h.replies().isEmpty)
        #expect(h.channel.isActive, "waits for the earlier call")
        h.lot.responder(1)?.succeed(["id": 1])
        let replies = try h.replies()
        #expect(replies.count == 2)
        #expect(replies.first?.parameters == ["id": 1])
        #expect(replies.last?.error == "org.varlink.service.InvalidParameter")
        #expect(replies.last?.parameters["parameter"] == "message")
        #expect(!h.channel.isActive, "the call after the garbage is never answered; the connection closes")
    }

    @Test func invalidUTF8ClosesTheConnection() throws {
        let h = try Harness()
        try h.send(bytes: Array(#"{"method":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8) + [0])
        #expect(try h.replies().map(\.error) == ["org.varlink.service.InvalidParameter"])
        #expect(!h.channel.isActive)
    }

    @Test func deepNestingClosesTheConnection() throws {
        let h = try Harness()
        try h.send(String(repeating: "[", count: 5000) + "\0")
        #expect(try h.replies().map(\.error) == ["org.varlink.service.InvalidParameter"])
        #expect(!h.channel.isActive)
    }

    @Test func anOversizedMessageGetsTheConfiguredReplyThenCloses() throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maximumMessageSize = 64
        configuration.protocolViolationReply = { violation in
            guard case .messageTooLarge(let limit) = violation else { return nil }
            return VarlinkCallError(name: "org.example.LimitExceeded", parameters: ["maximum": .integer(Int64(limit))])
        }
        let h = try Harness(configuration: configuration)
        try h.send(#"{"method":"org.example.test.Echo","parameters":{"small":1}}"# + "\0")
        try? h.send(#"{"method":"org.example.test.Echo","parameters":{"big":""# + String(repeating: "x", count: 100))
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["small": 1]),
            VarlinkReply(parameters: ["maximum": 64], error: "org.example.LimitExceeded"),
        ])
        #expect(!h.channel.isActive)
    }

    /// The handler splits what it reads into messages itself: every way of
    /// cutting the bytes of three calls in two gets the same three replies.
    @Test func everyTwoWaySplitOfTheInputGetsTheSameReplies() throws {
        let calls = (1...3).map { #"{"method":"org.example.test.Echo","parameters":{"value":\#($0)}}"# + "\0" }
        let input = Array(calls.joined().utf8)
        for cut in 0...input.count {
            let h = try Harness()
            try h.send(bytes: Array(input[..<cut]))
            try h.send(bytes: Array(input[cut...]))
            #expect(try h.replies() == (1...3).map { VarlinkReply(parameters: ["value": .integer(Int64($0))]) }, "cut at \(cut)")
            #expect(h.channel.isActive)
        }
    }

    /// An incomplete message holds its bytes from the server-wide budget
    /// until it completes, and is timed from its own first byte: a message
    /// completed ends its deadline, and the next one, begun in the same
    /// read, gets the whole timeout again.
    @Test func eachIncompleteMessageIsHeldAndTimedFromItsOwnStart() throws {
        var configuration = VarlinkServerConfiguration()
        configuration.messageTimeout = .seconds(10)
        let budget = VarlinkPartialMessageBudget(limit: 1 << 20)
        let h = try Harness(configuration: configuration, partialBudget: budget)
        let first = #"{"method":"org.example.test.Echo","#
        try h.send(first)
        #expect(budget.total == first.utf8.count)
        h.channel.embeddedEventLoop.advanceTime(by: .seconds(6))
        let second = #"{"method":"org."#
        try h.send(#""parameters":{"value":1}}"# + "\0" + second)
        #expect(budget.total == second.utf8.count)
        // 12 s after the first message began, 6 s after the second did.
        h.channel.embeddedEventLoop.advanceTime(by: .seconds(6))
        #expect(h.channel.isActive)
        #expect(try h.replies() == [VarlinkReply(parameters: ["value": 1])])
        // 11 s after the second began.
        h.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(try h.replies().map(\.error) == ["org.varlink.service.InvalidParameter"])
        #expect(!h.channel.isActive)
        #expect(budget.total == 0)
    }

    @Test func closingTheConnectionEndsLiveStreams() throws {
        let h = try Harness()
        try h.send(#"{"method":"org.example.test.Hold","parameters":{"id":1},"more":true}"# + "\0")
        let stream = try #require(h.lot.stream(1))
        #expect(!stream.isEnded)
        _ = try? h.channel.finish()
        #expect(stream.isEnded)
        stream.send(["tick": 1])  // dropped, no crash
    }

    @Test func readsAreHeldWhileTheClientIsNotReadingReplies() throws {
        let h = try Harness()
        let readsBefore = h.reads.count
        h.channel.isWritable = false
        h.channel.pipeline.fireChannelWritabilityChanged()
        h.channel.read()
        #expect(h.reads.count == readsBefore)
        h.channel.isWritable = true
        h.channel.pipeline.fireChannelWritabilityChanged()
        #expect(h.reads.count == readsBefore + 1)
    }

    @Test func readsAreHeldWhileTooManyCallsWait() throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maximumPendingCallsPerConnection = 4
        let h = try Harness(configuration: configuration)
        let parks = (1...4).map { #"{"method":"org.example.test.Park","parameters":{"id":\#($0)}}"# + "\0" }
        try h.send(parks.joined())
        // A read requested now is held back until replies drain.
        let readsBefore = h.reads.count
        h.channel.read()
        #expect(h.reads.count == readsBefore)
        for id in 1...4 { h.lot.responder(Int64(id))?.succeed(["id": .integer(Int64(id))]) }
        #expect(try h.replies().count == 4)
        #expect(h.reads.count == readsBefore + 1)
    }
}
