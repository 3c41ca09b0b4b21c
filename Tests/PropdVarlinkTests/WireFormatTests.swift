import NIOCore
import PropdJSON
import Testing

@testable import PropdVarlink

@Suite struct WireFormatTests {
    private func frame(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func aCallIsReadWithAllItsFlags() throws {
        let message = try VarlinkWireFormat.parseMessage(
            frame(#"{"method":"org.example.Get","parameters":{"keys":["a"],"n":21},"more":true,"oneway":false}"#))
        let call = try VarlinkCall(message: message)
        #expect(call.method == "org.example.Get")
        #expect(call.parameters == ["keys": ["a"], "n": 21])
        #expect(call.more && !call.oneway && !call.upgrade)
        #expect(call.interfaceName == "org.example")
    }

    @Test func missingParametersMeanEmpty() throws {
        let call = try VarlinkCall(message: try VarlinkWireFormat.parseMessage(frame(#"{"method":"a.B"}"#)))
        #expect(call.parameters.isEmpty)
    }

    @Test(arguments: [
        (#"{"parameters":{}}"#, VarlinkMessageShapeError(member: "method", expected: "string", actual: nil)),
        (#"{"method":7}"#, VarlinkMessageShapeError(member: "method", expected: "string", actual: "number")),
        (#"{"method":"a.B","parameters":[]}"#, VarlinkMessageShapeError(member: "parameters", expected: "object", actual: "array")),
        (#"{"method":"a.B","more":"yes"}"#, VarlinkMessageShapeError(member: "more", expected: "bool", actual: "string")),
        (#"{"method":"a.B","oneway":1}"#, VarlinkMessageShapeError(member: "oneway", expected: "bool", actual: "number")),
    ])
    func aCallOfTheWrongShapeNamesTheMember(text: String, expected: VarlinkMessageShapeError) throws {
        let message = try VarlinkWireFormat.parseMessage(frame(text))
        #expect(throws: expected) { try VarlinkCall(message: message) }
    }

    @Test(arguments: [
        (#"{"parameters":[]}"#, VarlinkMessageShapeError(member: "parameters", expected: "object", actual: "array")),
        (#"{"continues":"yes"}"#, VarlinkMessageShapeError(member: "continues", expected: "bool", actual: "string")),
        (#"{"error":1}"#, VarlinkMessageShapeError(member: "error", expected: "string", actual: "number")),
    ])
    func aReplyOfTheWrongShapeNamesTheMember(text: String, expected: VarlinkMessageShapeError) throws {
        let message = try VarlinkWireFormat.parseMessage(frame(text))
        #expect(throws: expected) { try VarlinkReply(message: message) }
    }

    @Test func malformedJSONIsAViolation() {
        #expect {
            try VarlinkWireFormat.parseMessage(frame(#"{"method":"a.B""#))
        } throws: { error in
            guard case .malformedJSON(let parse) = error as? VarlinkProtocolViolation else { return false }
            return parse.reason == .unexpectedEnd
        }
    }

    @Test func invalidUTF8IsAViolation() {
        var buffer = ByteBuffer(string: #"{"method":""#)
        buffer.writeBytes([0xC3, 0x28])
        buffer.writeString(#""}"#)
        #expect {
            try VarlinkWireFormat.parseMessage(buffer)
        } throws: { error in
            guard case .malformedJSON(let parse) = error as? VarlinkProtocolViolation else { return false }
            return parse.reason == .invalidUTF8
        }
    }

    @Test func deepNestingIsAViolation() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect {
            try VarlinkWireFormat.parseMessage(frame(#"{"method":"a.B","parameters":{"v":"# + deep + "}}"))
        } throws: { error in
            guard case .malformedJSON(let parse) = error as? VarlinkProtocolViolation else { return false }
            return parse.reason == .tooDeep(limit: VarlinkWireFormat.defaultMaximumDepth)
        }
    }

    @Test func aMessageThatIsNotAnObjectIsAViolation() {
        #expect(throws: VarlinkProtocolViolation.notAnObject(actual: "array")) {
            try VarlinkWireFormat.parseMessage(frame("[1]"))
        }
    }

    @Test func repliesRoundTrip() throws {
        let replies = [
            VarlinkReply(parameters: ["n": 21, "s": "x\u{0}y"]),
            VarlinkReply(parameters: ["i": 1], continues: true),
            VarlinkReply(error: .invalidParameter("keys")),
        ]
        for reply in replies {
            var buffer = ByteBuffer()
            var scratch: [UInt8] = []
            VarlinkWireFormat.write(reply, into: &buffer, scratch: &scratch)
            #expect(buffer.readableBytesView.last == 0)
            let body = buffer.getSlice(at: buffer.readerIndex, length: buffer.readableBytes - 1)!
            #expect(try VarlinkReply(message: VarlinkWireFormat.parseMessage(body)) == reply)
        }
    }

    @Test(arguments: ["plain", "", "é€😀", "q\"b\\c\n\t\u{1}", "mixed é \" end"])
    func stringsRoundTripThroughTheWire(text: String) throws {
        var buffer = ByteBuffer()
        var scratch: [UInt8] = []
        VarlinkWireFormat.write(VarlinkReply(parameters: [text: .string(text)]), into: &buffer, scratch: &scratch)
        let body = buffer.getSlice(at: buffer.readerIndex, length: buffer.readableBytes - 1)!
        #expect(try VarlinkReply(message: VarlinkWireFormat.parseMessage(body)).parameters == [text: .string(text)])
    }

    @Test func escapedTextIsWrittenAsJSONEscapes() {
        var buffer = ByteBuffer()
        var scratch: [UInt8] = []
        VarlinkWireFormat.write(VarlinkReply(parameters: ["k": "a\"b\\c\n\u{1}"]), into: &buffer, scratch: &scratch)
        #expect(String(buffer: buffer) == #"{"parameters":{"k":"a\"b\\c\n\u0001"}}"# + "\0")
    }

    @Test func integersStayIntegersOnTheWire() {
        var buffer = ByteBuffer()
        var scratch: [UInt8] = []
        VarlinkWireFormat.write(VarlinkReply(parameters: ["revision": 21]), into: &buffer, scratch: &scratch)
        #expect(String(buffer: buffer) == "{\"parameters\":{\"revision\":21}}\0")
    }

    @Test func callsRoundTrip() throws {
        let call = VarlinkCall(method: "a.B", parameters: ["x": [1, 2.5, nil]], more: true, oneway: false)
        var buffer = ByteBuffer()
        var scratch: [UInt8] = []
        VarlinkWireFormat.write(call, into: &buffer, scratch: &scratch)
        let body = buffer.getSlice(at: buffer.readerIndex, length: buffer.readableBytes - 1)!
        #expect(try VarlinkCall(message: VarlinkWireFormat.parseMessage(body)) == call)
    }

    @Test func aContinuingReplyFrameWrapsItsParametersVerbatim() {
        let frame = VarlinkWireFormat.continuingReplyFrame(reservingCapacity: 0) { out in
            out.append(contentsOf: #"{"event":{"k":1}}"#.utf8)
        }
        #expect(frame == Array("{\"parameters\":{\"event\":{\"k\":1}},\"continues\":true}\0".utf8))
    }

    /// A frame goes down the pipeline inside a `NIOAny`, whose `Any` keeps
    /// three words inline: a larger message would be boxed, one allocation
    /// per event and subscriber.
    @Test func anOutboundMessageFitsNIOAnysInlineStorage() {
        #expect(MemoryLayout<VarlinkOutboundMessage>.size <= 3 * MemoryLayout<Int>.size)
    }

    @Test func typedParameterReadsNameTheParameter() throws {
        let p: [String: JSONValue] = ["s": "x", "i": 3.0, "f": 2.5, "a": ["x", 1], "o": [:]]
        #expect(try p.requiredString("s") == "x")
        #expect(try p.optionalInteger("i") == 3)
        #expect(try p.optionalInteger("missing") == nil)
        #expect(throws: VarlinkCallError.invalidParameter("f")) { try p.requiredInteger("f") }
        #expect(throws: VarlinkCallError.invalidParameter("s")) { try p.requiredObject("s") }
        #expect(throws: VarlinkCallError.invalidParameter("a")) { try p.requiredStringArray("a") }
        #expect(throws: VarlinkCallError.invalidParameter("missing")) { try p.requiredString("missing") }
    }
}
