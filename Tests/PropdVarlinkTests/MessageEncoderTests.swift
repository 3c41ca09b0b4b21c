import NIOCore
import NIOEmbedded
import Testing

@testable import PropdVarlink

/// The encoder keeps its last small buffer for the next burst: whatever it
/// reuses, every burst leaves with exactly its own bytes.
@Suite struct MessageEncoderTests {
    private static func frame(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    private static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(VarlinkMessageEncoder())
        return channel
    }

    private static func send(_ frames: [[UInt8]], on channel: EmbeddedChannel) {
        for frame in frames { channel.write(VarlinkOutboundMessage.frame(frame), promise: nil) }
        channel.flush()
    }

    private static func written(_ channel: EmbeddedChannel) throws -> [UInt8]? {
        try channel.readOutbound(as: ByteBuffer.self).map { Array($0.readableBytesView) }
    }

    /// The socket has not taken the first burst (it is still queued) when the
    /// second is encoded: the second must not write over it.
    @Test func aBurstStillQueuedIsNotOverwrittenByTheNext() throws {
        let channel = try Self.channel()
        let first = Self.frame(#"{"parameters":{"event":{"key":"a.first","value":1}},"continues":true}"#)
        let second = Self.frame(#"{"parameters":{"revision":2}}"#)
        Self.send([first], on: channel)
        Self.send([second], on: channel)
        #expect(try Self.written(channel) == first)
        #expect(try Self.written(channel) == second)
        #expect(try Self.written(channel) == nil)
    }

    /// Once taken, a burst's buffer starts the next one empty: a shorter
    /// burst after a longer one carries nothing of it.
    @Test func aShorterBurstAfterALongerOneCarriesOnlyItsOwnBytes() throws {
        let channel = try Self.channel()
        let long = [Self.frame(#"{"parameters":{"event":{"key":"room.temp","value":21.5}},"continues":true}"#),
                    Self.frame(#"{"parameters":{"event":{"key":"room.hum","value":40}},"continues":true}"#)]
        let short = Self.frame(#"{"parameters":{"revision":7}}"#)
        Self.send(long, on: channel)
        #expect(try Self.written(channel) == long[0] + long[1])
        Self.send([short], on: channel)
        #expect(try Self.written(channel) == short)
        Self.send([short, short], on: channel)
        #expect(try Self.written(channel) == short + short)
    }

    /// A burst larger than the kept size, then small ones: each is whole.
    @Test func aLargeBurstBetweenSmallOnesLeavesWhole() throws {
        let channel = try Self.channel()
        let small = Self.frame(#"{"parameters":{"revision":1}}"#)
        let large = Self.frame(#"{"parameters":{"value":""# + String(repeating: "x", count: 4 * VarlinkWriteCoalescer.spareCapacityLimit) + #""}}"#)
        for burst in [[small], [large], [small], [large, small]] {
            Self.send(burst, on: channel)
            #expect(try Self.written(channel) == burst.flatMap { $0 })
        }
        #expect(try Self.written(channel) == nil)
    }
}
