import NIOCore
import PropdJSON
import Testing

@testable import PropdVarlink

/// Calls whose method decodes them straight from the frame: the usual shape
/// takes that way, everything else the method's body, with the same answers
/// and errors as a server without direct decoding gives.
@Suite struct DirectDecodingTests {
    typealias Harness = ConnectionHandlerTests.Harness

    private func reason(_ reply: VarlinkReply?) -> String {
        if case .string(let reason)? = reply?.parameters["reason"] { return reason }
        return ""
    }

    private func way(_ h: Harness, _ text: String) throws -> [VarlinkReply] {
        try h.send(text + "\0")
        return try h.replies()
    }

    @Test func theUsualShapeIsDecodedDirectly() throws {
        let h = try Harness()
        #expect(try way(h, #"{"method":"org.example.test.Tag","parameters":{"value":7}}"#)
            == [VarlinkReply(parameters: ["value": 7, "way": "direct"])])
        // White space anywhere, and the flags a call may carry.
        #expect(try way(h, #" { "method" : "org.example.test.Tag" , "parameters" : { "value" : 8 } , "more" : false } "#)
            == [VarlinkReply(parameters: ["value": 8, "way": "direct"])])
        // Escapes are read as the parser reads them.
        #expect(try way(h, #"{"method":"org.example.test.T\u0061g","parameters":{"value":9}}"#)
            == [VarlinkReply(parameters: ["value": 9, "way": "direct"])])
    }

    @Test func otherShapesGoThroughTheBodyWithTheSameAnswer() throws {
        let h = try Harness()
        let others = [
            // parameters before method
            #"{"parameters":{"value":1},"method":"org.example.test.Tag"}"#,
            // a member the direct decoder does not know
            #"{"method":"org.example.test.Tag","parameters":{"value":1,"extra":true}}"#,
            // a member of the message the envelope does not know
            #"{"method":"org.example.test.Tag","parameters":{"value":1},"id":5}"#,
            // a repeated member (the parsed message keeps the last)
            #"{"method":"org.example.test.Tag","parameters":{"value":0},"parameters":{"value":1}}"#,
        ]
        for text in others {
            #expect(try way(h, text) == [VarlinkReply(parameters: ["value": 1, "way": "body"])], "\(text)")
        }
    }

    @Test func aReadIsAnsweredInOrderEitherWay() throws {
        let h = try Harness()
        // Behind a running call, a read waits; decoded directly or not, it
        // answers after it, in order.
        try h.send(
            #"{"method":"org.example.test.Park","parameters":{"id":1}}"# + "\0"
                + #"{"method":"org.example.test.ReadTag","parameters":{"value":2}}"# + "\0"
                + #"{"parameters":{"value":3},"method":"org.example.test.ReadTag"}"# + "\0")
        #expect(try h.replies().isEmpty)
        h.lot.responder(1)?.succeed(["id": 1])
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["id": 1]),
            VarlinkReply(parameters: ["value": 2, "way": "direct"]),
            VarlinkReply(parameters: ["value": 3, "way": "body"]),
        ])
        #expect(try way(h, #"{"method":"org.example.test.ReadTag","parameters":{"value":4}}"#)
            == [VarlinkReply(parameters: ["value": 4, "way": "direct"])])
    }

    /// A client that does not read its replies holds back every call,
    /// decoded directly or not: replies stay within the outbound buffer.
    @Test func noCallStartsWhileTheConnectionIsUnwritable() throws {
        let h = try Harness()
        h.channel.isWritable = false
        h.channel.pipeline.fireChannelWritabilityChanged()
        try h.send(
            #"{"method":"org.example.test.ReadTag","parameters":{"value":1}}"# + "\0"
                + #"{"method":"org.example.test.Tag","parameters":{"value":2}}"# + "\0"
                + #"{"parameters":{"value":3},"method":"org.example.test.ReadTag"}"# + "\0")
        #expect(try h.replies().isEmpty)
        h.channel.isWritable = true
        h.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try h.replies() == [
            VarlinkReply(parameters: ["value": 1, "way": "direct"]),
            VarlinkReply(parameters: ["value": 2, "way": "direct"]),
            VarlinkReply(parameters: ["value": 3, "way": "body"]),
        ])
    }

    @Test func badParametersGetTheBodysError() throws {
        let h = try Harness()
        #expect(try way(h, #"{"method":"org.example.test.Tag","parameters":{"value":"seven"}}"#)
            == [VarlinkReply(error: .invalidParameter("value"))])
    }

    @Test func onewayIsHonoured() throws {
        let h = try Harness()
        #expect(try way(h, #"{"method":"org.example.test.Tag","parameters":{"value":1},"oneway":true}"#).isEmpty)
        #expect(try way(h, #"{"method":"org.example.test.Tag","parameters":{"value":2}}"#)
            == [VarlinkReply(parameters: ["value": 2, "way": "direct"])])
    }

    @Test func malformedJSONAfterTheParametersIsStillAViolation() throws {
        let h = try Harness()
        let replies = try way(h, #"{"method":"org.example.test.Tag","parameters":{"value":1},}"#)
        #expect(replies.count == 1)
        #expect(replies.first?.error == "org.varlink.service.InvalidParameter")
        #expect(replies.first?.parameters["parameter"] == "message")
        #expect(reason(replies.first).hasPrefix("message is not valid JSON"))
        #expect(!h.channel.isActive, "the connection closes after a malformed message")
    }

    @Test func nestingBeyondTheLimitIsRefusedAlike() throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maximumNestingDepth = 2
        let h = try Harness(configuration: configuration)
        // message (1), parameters (2): within the limit, decoded directly.
        #expect(try way(h, #"{"method":"org.example.test.Tag","parameters":{"value":3}}"#)
            == [VarlinkReply(parameters: ["value": 3, "way": "direct"])])
        let tooDeep = try way(h, #"{"method":"org.example.test.Tag","parameters":{"value":{"x":1}}}"#)
        #expect(tooDeep.count == 1)
        #expect(reason(tooDeep.first).contains("nested deeper than 2"))
        #expect(!h.channel.isActive)
    }

    /// A connection keeps the method its last direct call named: a call of
    /// another method is decoded with that method's decoder and starts as
    /// that method starts, and a method without a direct decoder is decoded
    /// the usual way, the kept method staying.
    @Test func eachCallIsDecodedByTheMethodItNames() throws {
        let registry = try VarlinkRegistry(
            info: TestInterface.info, interfaces: [TestInterface.interface(lot: ParkingLot())])
        var recent: VarlinkDirectMethod?
        func decode(_ text: String) -> VarlinkDirectCall? {
            VarlinkDirectCall.decode(ByteBuffer(string: text), registry: registry, recent: &recent, maximumDepth: 64)
        }
        let tag = decode(#"{"method":"org.example.test.Tag","parameters":{"value":1}}"#)
        #expect(tag?.name == "org.example.test.Tag")
        #expect(tag?.startsAfterEarlierCalls == false)
        #expect(recent?.name == "org.example.test.Tag")
        let readTag = decode(#"{"method":"org.example.test.ReadTag","parameters":{"value":2}}"#)
        #expect(readTag?.name == "org.example.test.ReadTag")
        #expect(readTag?.startsAfterEarlierCalls == true)
        #expect(recent?.name == "org.example.test.ReadTag")
        // No direct decoder, or one that needs `more`: not decoded here.
        #expect(decode(#"{"method":"org.example.test.Echo","parameters":{"value":3}}"#) == nil)
        #expect(decode(#"{"method":"org.example.test.Hold","parameters":{"id":1},"more":true}"#) == nil)
        #expect(decode(#"{"method":"org.example.test.Nope","parameters":{"value":3}}"#) == nil)
        #expect(recent?.name == "org.example.test.ReadTag")
        #expect(decode(#"{"method":"org.example.test.ReadTag","parameters":{"value":4}}"#)?.startsAfterEarlierCalls == true)
        #expect(decode(#"{"method":"org.example.test.Tag","parameters":{"value":5}}"#)?.startsAfterEarlierCalls == false)
    }
}
