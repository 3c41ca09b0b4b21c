import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// A `Set` in the usual shape (`method`, then `parameters` with `values`
/// only) is read straight from its frame; any other shape through the
/// parsed message. Both give the same answers, errors included.
@Suite struct SetDecodingTests {
    /// The same call in the usual shape and with `parameters` first.
    private func bothShapes(_ values: String) -> (usual: String, other: String) {
        (
            #"{"method":"io.propd.Set","parameters":{"values":"# + values + "}}",
            #"{"parameters":{"values":"# + values + #"},"method":"io.propd.Set"}"#
        )
    }

    private func answers(_ raw: RawSocket, _ values: String) async throws -> [[String: JSONValue]?] {
        let (usual, other) = bothShapes(values)
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
