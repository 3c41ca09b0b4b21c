import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// A `Set` or a `Get` in the usual shape (`method`, then `parameters`
/// with `values` or `keys` only) is read straight from its frame; any other
/// shape through the parsed message. Both give the same answers, errors
/// included.
@Suite struct FrameDecodingTests {
    /// The same call in the usual shape and with `parameters` first.
    private func bothShapes(_ method: String, _ parameters: String) -> (usual: String, other: String) {
        (
            #"{"method":"io.propd."# + method + #"","parameters":"# + parameters + "}",
            #"{"parameters":"# + parameters + #","method":"io.propd."# + method + #""}"#
        )
    }

    /// The answers to a `Set` of `values` in either shape.
    private func answers(_ raw: RawSocket, _ values: String) async throws -> [[String: JSONValue]?] {
        try await answers(raw, "Set", #"{"values":"# + values + "}")
    }

    private func answers(_ raw: RawSocket, _ method: String, _ parameters: String) async throws
        -> [[String: JSONValue]?]
    {
        let (usual, other) = bothShapes(method, parameters)
        #expect(raw.send(usual + "\0"))
        let first = try await raw.receive()
        #expect(raw.send(other + "\0"))
        return [first, try await raw.receive()]
    }

    @Test func bothShapesAnswerAlike() async throws {
        let daemon = try PropdProcess()
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let raw = try RawSocket(path: daemon.socketPath)

        let written = try await answers(raw, #"{"a.b": 1, "a.c": [true, {"x": null}], "a.b": 2}"#)
        #expect(written.map { $0?["parameters"]?["revision"] } == [1, 2])
        // A key given twice keeps its last value, as the parsed object does.
        let values = try await client.get(["a.b", "a.c"])
        #expect(values.map(\.value) == [2, [true, ["x": nil]]])

        let invalid = try await answers(raw, #"{"ok.key": 1, "bad key": 2}"#)
        #expect(invalid[0]?["error"] == "io.propd.InvalidKey")
        #expect(invalid[0] == invalid[1])

        try await client.bind("d.sum", "a.b.map { $0 + 1 }")
        let derived = try await answers(raw, #"{"d.sum": 5}"#)
        #expect(derived[0]?["error"] == "io.propd.KeyIsDerived")
        #expect(derived[0] == derived[1])

        let notAnObject = try await answers(raw, #"[1]"#)
        #expect(notAnObject[0]?["error"] == "org.varlink.service.InvalidParameter")
        #expect(notAnObject[0] == notAnObject[1])
        // Nothing refused was written: the last revision is the Bind's.
        #expect(try await client.stats().revision == 3)
    }

    @Test func getAnswersAlikeEitherWay() async throws {
        let daemon = try PropdProcess()
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let raw = try RawSocket(path: daemon.socketPath)
        try await client.set(["g.a": 1, "g.b": ["x": [true, "y"]]])
        try await client.bind("g.c", "g.a.map { $0 + 1 }")
        try await client.set(["g.ttl": 5], ttl: 3_600_000)

        let read = try await answers(raw, "Get", #"{"keys": ["g.a", "g.b", "g.c", "g.ttl"]}"#)
        #expect(read[0] == read[1])
        guard case .array(let properties)? = read[0]?["parameters"]?["properties"] else {
            Issue.record("no properties in \(String(describing: read[0]))")
            return
        }
        #expect(properties.map { $0["key"] } == ["g.a", "g.b", "g.c", "g.ttl"])
        #expect(properties[1]["value"] == ["x": [true, "y"]])
        #expect(properties[2]["binding"] == "g.a.map { $0 + 1 }" && properties[2]["value"] == 2)
        #expect(properties[3]["expires"] != nil)

        let missing = try await answers(raw, "Get", #"{"keys": ["g.a", "g.none"]}"#)
        #expect(missing[0]?["error"] == "io.propd.NoSuchKey")
        #expect(missing[0] == missing[1])
        let invalid = try await answers(raw, "Get", #"{"keys": ["ok", "bad key"]}"#)
        #expect(invalid[0]?["error"] == "io.propd.InvalidKey")
        #expect(invalid[0] == invalid[1])
        let notStrings = try await answers(raw, "Get", #"{"keys": [1]}"#)
        #expect(notStrings[0]?["error"] == "org.varlink.service.InvalidParameter")
        #expect(notStrings[0] == notStrings[1])
    }

    @Test func moreKeysThanAllowedAreRefusedEitherWay() async throws {
        let daemon = try PropdProcess()
        let raw = try RawSocket(path: daemon.socketPath)
        // 65,536 keys a call at most (InterfaceLimits.keysPerCall).
        let values = "{" + (0...65_536).map { #""k.n\#($0)": 1"# }.joined(separator: ",") + "}"
        let refused = try await answers(raw, values)
        #expect(refused[0]?["error"] == "io.propd.LimitExceeded")
        #expect(refused[0]?["parameters"]?["limit"] == "max-keys-per-call")
        #expect(refused[0] == refused[1])
        let accepted = try await answers(raw, #"{"k.a": 1, "k.b": 2}"#)
        #expect(accepted.map { $0?["parameters"]?["revision"] } == [1, 2])
    }
}
