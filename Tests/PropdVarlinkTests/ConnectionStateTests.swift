import NIOCore
import NIOEmbedded
import PropdJSON
import Testing

@testable import PropdVarlink

/// The connection's state transitions: stopping (quiescing) at each point of
/// a connection's life, a violation under a live stream, reads owed across
/// a backlog and a full socket; and the state enums' own rules.
@Suite struct ConnectionStateTests {
    typealias Harness = ConnectionHandlerTests.Harness

    static let park = #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0"
    static let echo = #"{"method":"org.example.test.Echo","parameters":{"late":true}}"# + "\0"
    static let hold = #"{"method":"org.example.test.Hold","parameters":{"id":1},"more":true}"# + "\0"

    static func quiesce(_ h: Harness) {
        h.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        h.channel.embeddedEventLoop.run()
    }

    @Test func stoppingAnIdleConnectionClosesIt() throws {
        let h = try Harness()
        Self.quiesce(h)
        #expect(try h.replies().isEmpty)
        #expect(!h.channel.isActive)
    }

    @Test func stoppingLetsTheRunningCallFinishAndTakesNoMore() throws {
        let h = try Harness()
        try h.send(Self.park)
        Self.quiesce(h)
        #expect(h.channel.isActive, "the running call is answered first")
        try h.send(Self.echo)
        h.lot.responder(1)?.succeed(["id": 1])
        #expect(try h.replies() == [VarlinkReply(parameters: ["id": 1])], "the call sent while stopping is not taken")
        #expect(!h.channel.isActive)
    }

    @Test func stoppingUnderALiveStreamClosesAtOnce() throws {
        let h = try Harness()
        try h.send(Self.hold)
        let stream = try #require(h.lot.stream(1))
        stream.send(["tick": 1])
        Self.quiesce(h)
        #expect(try h.replies() == [VarlinkReply(parameters: ["tick": 1], continues: true)])
        #expect(!h.channel.isActive)
        #expect(stream.isEnded)
    }

    @Test func stoppingAClosedConnectionChangesNothing() throws {
        let h = try Harness()
        try h.send("not json\0")
        #expect(!h.channel.isActive)
        Self.quiesce(h)
        #expect(try h.replies().map(\.error) == ["org.varlink.service.InvalidParameter"])
    }

    @Test func aViolationUnderALiveStreamIsAnsweredWhenTheStreamEnds() throws {
        let h = try Harness()
        try h.send(Self.hold)
        let stream = try #require(h.lot.stream(1))
        try h.send("not json\0")
        stream.send(["tick": 1])
        #expect(h.channel.isActive, "the stream still owns the connection")
        stream.finish(["tick": 2])
        let replies = try h.replies()
        #expect(replies.prefix(2) == [
            VarlinkReply(parameters: ["tick": 1], continues: true), VarlinkReply(parameters: ["tick": 2]),
        ])
        #expect(replies.dropFirst(2).map(\.error) == ["org.varlink.service.InvalidParameter"])
        #expect(!h.channel.isActive)
    }

    @Test func aReadOwedDuringABacklogWaitsForWritability() throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maximumPendingCallsPerConnection = 4
        let h = try Harness(configuration: configuration)
        try h.send((1...4).map { #"{"method":"org.example.test.Park","parameters":{"id":\#($0)}}"# + "\0" }.joined())
        let readsBefore = h.reads.count
        h.channel.read()
        #expect(h.reads.count == readsBefore, "held: too many calls wait")
        h.channel.isWritable = false
        h.channel.pipeline.fireChannelWritabilityChanged()
        for id in 1...4 { h.lot.responder(Int64(id))?.succeed(["id": .integer(Int64(id))]) }
        #expect(h.reads.count == readsBefore, "the backlog is gone but the client reads no replies")
        h.channel.isWritable = true
        h.channel.pipeline.fireChannelWritabilityChanged()
        #expect(h.reads.count == readsBefore + 1)
        #expect(try h.replies().count == 4)
    }

    // MARK: The enums' rules

    @Test func aPhaseOnlyMovesTowardClosing() {
        var phase = ConnectionPhase.reading
        #expect(phase.takesCalls && phase.writes)
        phase.refuse()
        #expect(phase == .refusing && !phase.takesCalls && phase.writes)
        phase.quiesce()
        #expect(phase == .quiescing)
        phase.refuse()
        #expect(phase == .quiescing, "a violation does not undo stopping")
        phase = .closed
        phase.quiesce()
        phase.refuse()
        #expect(phase == .closed && !phase.writes)
    }

    @Test func holdingReadsKeepsAReadOwed() {
        var gate = ReadGate.open
        gate.hold()
        #expect(gate == .held(owed: false))
        gate = .owedUntilWritable
        gate.hold()
        #expect(gate == .held(owed: true))
        gate.hold()
        #expect(gate == .held(owed: true))
    }

    @Test func aQueuedFlushTaskKnowsWhetherAnythingAwaitsIt() {
        var output = OutputFlush.flushed
        output.wrote()
        #expect(output == .written && output.hasUnflushedWrites)
        output = .flushQueued(written: output.hasUnflushedWrites)
        output.flushed()  // the read burst's end flushed first
        #expect(output == .flushQueued(written: false) && !output.hasUnflushedWrites && output.flushQueued)
        output.wrote()
        #expect(output == .flushQueued(written: true))
        output.flushTaskRan()
        #expect(output == .written)
        output.flushed()
        output.flushTaskRan()
        #expect(output == .flushed)
    }
}
