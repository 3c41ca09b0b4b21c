import PropdCore
import PropdWire
import Testing

/// What the daemon encodes, a client decodes to the same value, for every
/// reply shape and every error with its parameters; through the bytes too,
/// since that is how they travel.
@Suite struct RoundTripTests {
    /// Encoded, written as JSON text, parsed back: the parameters as a peer receives them.
    static func overTheWire(_ parameters: [String: JSONValue]) throws -> [String: JSONValue] {
        let text = JSONValue.object(parameters).jsonString
        guard case .object(let object) = try JSONValue(parsing: text) else {
            Issue.record("\(text) is not an object")
            return [:]
        }
        return object
    }

    @Test(arguments: IOPropdMethod.allCases)
    func everyReplyRoundTrips(method: IOPropdMethod) throws {
        for reply in WireSamples.replies(method) {
            try expectRoundTrip(reply)
        }
    }

    private func expectRoundTrip<Reply: IOPropdReply>(_ reply: Reply) throws {
        #expect(try Reply(parameters: reply.parameters) == reply)
        #expect(try Reply(parameters: try Self.overTheWire(reply.parameters)) == reply)
    }

    @Test(arguments: WireSamples.errors)
    func everyErrorRoundTripsWithItsParameters(error: IOPropdError) throws {
        #expect(IOPropdError(qualifiedName: error.qualifiedName, parameters: error.parameters) == error)
        let received = try Self.overTheWire(error.parameters)
        #expect(IOPropdError(qualifiedName: error.qualifiedName, parameters: received) == error)
        #expect(error.qualifiedName == "io.propd." + error.name.rawValue)
    }

    @Test func everyErrorNameHasASample() {
        #expect(Set(WireSamples.errors.map(\.name)) == Set(IOPropdError.Name.allCases))
    }

    @Test func namesOutsideIOPropdAreNotItsErrors() {
        #expect(IOPropdError(qualifiedName: "org.varlink.service.InvalidParameter", parameters: [:]) == nil)
        #expect(IOPropdError(qualifiedName: "io.propd.NoSuchThing", parameters: [:]) == nil)
        #expect(IOPropdError(qualifiedName: "NoSuchKey", parameters: ["key": "a"]) == nil)
    }

    /// The hub writes events as bytes without a JSON tree: the same object
    /// the tree gives.
    @Test(arguments: WireSamples.events)
    func eventBytesAreTheEventObject(event: Event) throws {
        #expect(try JSONValue(parsingUTF8: EventEncoding.jsonObject(event)) == event.wireValue)
        var parameters: [UInt8] = []
        EventEncoding.encodeReplyParameters(event, into: &parameters)
        let parsed = try JSONValue(parsingUTF8: parameters)
        #expect(parsed == .object(EventReply(event: event).parameters))
        #expect(try EventReply(parameters: try #require(parsed.fields)).event == event)
    }

    /// Write replies and `Get` write their own bytes: the same object the tree gives.
    @Test func repliesWrittenWithoutATreeAreTheirObjects() throws {
        for reply in [PropertiesReply(properties: WireSamples.properties), PropertiesReply(properties: [])] {
            var bytes: [UInt8] = []
            reply.encodeJSONObject(into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == JSONValue.object(reply.parameters).jsonString)
        }
        for revision in [Revision(0), Revision(42), Revision(Int64.max)] {
            var bytes: [UInt8] = []
            RevisionReply(revision: revision).encodeJSONObject(into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == JSONValue.object(RevisionReply(revision: revision).parameters).jsonString)
        }
    }

    @Test func wrongShapesAreNamed() throws {
        #expect(throws: WireShapeError("missing integer 'revision'")) { try RevisionReply(parameters: [:]) }
        #expect(throws: WireShapeError("'bad key' is not a key")) {
            try PropertiesReply(parameters: [
                "properties": .array([.object(["key": "bad key", "revision": 1, "created": 1])])
            ])
        }
        #expect(throws: WireShapeError("unknown event kind 'moved'")) {
            try EventReply(parameters: ["event": .object(["key": "a", "kind": "moved", "revision": 1])])
        }
        #expect(throws: WireShapeError("'sources' holds a non-string")) {
            try BindReply(parameters: ["revision": 1, "sources": .array([.integer(1)])])
        }
        #expect(throws: WireShapeError("a Serve reply without an invocation")) { try InvocationReply(parameters: [:]) }
        #expect(throws: WireShapeError("missing uptimeSeconds")) { try DaemonStatistics(parameters: ["revision": 1]) }
        let figures: [String: JSONValue] = [
            "revision": 1, "keys": 0, "bindings": 0, "subscriptions": 0, "connections": 0, "uptimeSeconds": 1,
            "databaseBytes": 0,
        ]
        #expect(throws: WireShapeError("'role' is 'primary', neither standalone nor cluster")) {
            try DaemonStatistics(parameters: figures.merging(["role": "primary"]) { $1 })
        }
        #expect(throws: WireShapeError("missing bool 'timerHolder' of a cluster node")) {
            try DaemonStatistics(parameters: figures.merging(["role": "cluster"]) { $1 })
        }
        // A daemon that does not report its role.
        #expect(try DaemonStatistics(parameters: figures).role == nil)
    }

    /// A client leaves out what it was not given: the daemon's defaults apply.
    @Test func absentParametersAreLeftOut() {
        #expect(IOPropdCall.set(values: ["a": 1], expect: [:], ttl: nil).parameters == ["values": .object(["a": 1])])
        #expect(IOPropdCall.delete(keys: [], expect: [:], patterns: []).parameters == ["keys": .array([])])
        #expect(IOPropdCall.list(pattern: nil, limit: nil).parameters.isEmpty)
        #expect(
            IOPropdCall.subscribe(patterns: ["a"], since: nil, replay: nil, initial: nil, coalesce: nil).parameters
                == ["patterns": .array(["a"])])
        #expect(IOPropdCall.complete(id: "i", result: nil, error: nil).parameters == ["id": "i"])
        #expect(IOPropdCall.execute(command: "c", argument: .null, timeout: nil).parameters == ["command": "c", "argument": .null])
    }

    /// Absent and `null` optional fields read the same.
    @Test func nullOptionalsReadAsAbsent() throws {
        let reply = try ReloadReply(parameters: ["revision": 2, "errors": .array([]), "applied": .null])
        #expect(reply == ReloadReply(revision: Revision(2), errors: []))
        let execution = try ExecutionResult(parameters: ["revision": 2, "result": .null])
        #expect(execution == ExecutionResult(result: nil, revision: Revision(2)))
    }
}
