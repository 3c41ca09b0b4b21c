import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

@testable import PropdVarlink

@Suite struct FrameDecoderTests {
    @Test func verifierFindsEveryFrameWhateverTheSplits() throws {
        let pairs: [(ByteBuffer, [ByteBuffer])] = [
            (ByteBuffer(string: "{\"method\":\"a.B\"}\0"), [ByteBuffer(string: "{\"method\":\"a.B\"}")]),
            (ByteBuffer(string: "x\0yz\0\0"), [ByteBuffer(string: "x"), ByteBuffer(string: "yz"), ByteBuffer()]),
            (ByteBuffer(string: "{\"k\":\"é€\"}\0"), [ByteBuffer(string: "{\"k\":\"é€\"}")]),
        ]
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: pairs) { VarlinkFrameDecoder() }
    }

    /// Every way of cutting the input in two yields the same frames.
    @Test func everyTwoWaySplitYieldsTheSameFrames() throws {
        let input = Array("{\"method\":\"a.B\",\"parameters\":{}}\0{}\0{\"x\":[1,2]}\0".utf8)
        let expected = ["{\"method\":\"a.B\",\"parameters\":{}}", "{}", "{\"x\":[1,2]}"]
        for cut in 0...input.count {
            let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder()))
            try channel.writeInbound(ByteBuffer(bytes: input[..<cut]))
            try channel.writeInbound(ByteBuffer(bytes: input[cut...]))
            var frames: [String] = []
            while let frame = try channel.readInbound(as: ByteBuffer.self) { frames.append(String(buffer: frame)) }
            #expect(frames == expected, "cut at \(cut)")
            #expect(try channel.finish().isClean)
        }
    }

    @Test func aMessageOverTheLimitWithoutNULIsRefused() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder(maximumMessageSize: 16)))
        #expect(throws: VarlinkProtocolViolation.messageTooLarge(limit: 16)) {
            try channel.writeInbound(ByteBuffer(string: String(repeating: "a", count: 17)))
        }
        _ = try? channel.finish()
    }

    @Test func aMessageOverTheLimitArrivingWithItsNULIsRefused() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder(maximumMessageSize: 16)))
        try channel.writeInbound(ByteBuffer(string: "0123456789abcdef\0"))  // exactly the limit: fine
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "0123456789abcdef"))
        #expect(throws: VarlinkProtocolViolation.messageTooLarge(limit: 16)) {
            try channel.writeInbound(ByteBuffer(string: "0123456789abcdefg\0"))
        }
        _ = try? channel.finish()
    }

    @Test func aMessageGrowingPastTheLimitAcrossReadsIsRefused() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder(maximumMessageSize: 16)))
        try channel.writeInbound(ByteBuffer(string: "0123456789"))
        #expect(throws: VarlinkProtocolViolation.messageTooLarge(limit: 16)) {
            try channel.writeInbound(ByteBuffer(string: "0123456789"))
        }
        _ = try? channel.finish()
    }

    @Test func bytesLeftWithoutNULAtEndOfStreamAreATruncatedMessage() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder()))
        try channel.writeInbound(ByteBuffer(string: "{}\0{\"meth"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "{}"))
        #expect(throws: VarlinkProtocolViolation.truncatedMessage(bytes: 6)) { try channel.finish() }
    }
}
