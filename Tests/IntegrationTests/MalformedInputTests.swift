import PropdTestSupport
import PropdClient
import PropdCore
import Testing

/// Bad bytes on a raw socket: the daemon answers with a named error or
/// closes only that connection; stored data and other clients are untouched.
@Suite struct MalformedInputTests {
    /// A daemon with one known value and a healthy client that checks it after each abuse.
    struct Fixture {
        let daemon: PropdProcess
        let healthy: PropdClient

        init() async throws {
            daemon = try PropdProcess()
            healthy = try await PropdClient.connect(to: daemon.socketPath)
            try await healthy.set(["safe.value": 42])
        }

        func assertUnharmed() async throws {
            let values = try await healthy.get(["safe.value"])
            #expect(values[0].value == 42 && values[0].revision == 1)
            #expect(try await healthy.stats().revision == 1)
            // And a brand-new connection works too.
            let fresh = try await PropdClient.connect(to: daemon.socketPath)
            #expect(try await fresh.get(["safe.value"])[0].value == 42)
        }
    }

    func errorName(_ reply: [String: JSONValue]?) -> String? {
        if case .string(let name)? = reply?["error"] { return name }
        return nil
    }

    @Test func garbageBytesCloseOnlyThatConnection() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        raw.send([0x01, 0xFF, 0x7B, 0x00])
        #expect(try await raw.waitForClose())
        try await fixture.assertUnharmed()
    }

    @Test func invalidJSONGetsANamedErrorThenClose() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        raw.send(Array(#"{"method": "io.propd.Set", "parameters": {"values": {"a": 1}"#.utf8) + [0])
        let reply = try await raw.receive()
        #expect(errorName(reply) == "org.varlink.service.InvalidParameter")
        #expect(try await raw.waitForClose())
        try await fixture.assertUnharmed()
    }

    @Test func invalidUTF8IsRefused() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        let bytes = Array(#"{"method":"io.propd.Set","parameters":{"values":{"safe.value":""#.utf8) + [0xC3, 0x28]
            + Array(#""}}}"#.utf8) + [0]
        raw.send(bytes)
        #expect(errorName(try await raw.receive()) == "org.varlink.service.InvalidParameter")
        #expect(try await raw.waitForClose())
        try await fixture.assertUnharmed()
    }

    @Test func aTruncatedFrameChangesNothing() async throws {
        let fixture = try await Fixture()
        do {
            let raw = try RawSocket(path: fixture.daemon.socketPath)
            // No NUL: the message never completes; the client goes away.
            #expect(raw.send(#"{"method":"io.propd.Set","parameters":{"values":{"safe.value":0}}}"#))
        }
        try await fixture.assertUnharmed()
    }

    @Test func aMessageOverTheSizeLimitIsRefused() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        let huge = "{\"method\":\"io.propd.Set\",\"parameters\":{\"values\":{\"safe.value\":\""
            + String(repeating: "x", count: 9 * 1024 * 1024) + "\"}}}"
        raw.send(Array(huge.utf8) + [0])
        let reply = try await raw.receive()
        #expect(errorName(reply) == "io.propd.LimitExceeded")
        if case .object(let parameters)? = reply?["parameters"] {
            #expect(parameters["maximum"] == .integer(8 * 1024 * 1024))
        }
        #expect(try await raw.waitForClose())
        try await fixture.assertUnharmed()
    }

    @Test func deeplyNestedJSONIsRefused() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        let deep = "{\"method\":\"io.propd.Set\",\"parameters\":{\"values\":{\"safe.value\":"
            + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}}}"
        raw.send(Array(deep.utf8) + [0])
        #expect(errorName(try await raw.receive()) == "org.varlink.service.InvalidParameter")
        #expect(try await raw.waitForClose())
        try await fixture.assertUnharmed()
    }

    @Test func wrongParameterTypesAreInvalidParameterAndTheConnectionStays() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        let cases: [(String, JSONValue, String)] = [
            ("io.propd.Set", ["values": "not an object"], "values"),
            ("io.propd.Set", ["values": ["safe.value": 1], "expect": ["safe.value": "one"]], "expect"),
            ("io.propd.Get", ["keys": "safe.value"], "keys"),
            ("io.propd.Get", ["keys": [1, 2]], "keys"),
            ("io.propd.List", ["limit": "ten"], "limit"),
            ("io.propd.List", ["limit": -1], "limit"),
            ("io.propd.History", [:], "key"),
            ("io.propd.Bind", ["key": "a.b"], "expression"),
        ]
        for (method, parameters, name) in cases {
            #expect(raw.call(method, parameters))
            let reply = try await raw.receive()
            #expect(errorName(reply) == "org.varlink.service.InvalidParameter", "\(method) \(parameters)")
            #expect(reply?["parameters"] == .object(["parameter": .string(name)]), "\(method) \(parameters)")
        }
        // Same connection still serves.
        #expect(raw.call("io.propd.Get", ["keys": ["safe.value"]]))
        #expect(try await raw.receive()?["error"] == nil)
        try await fixture.assertUnharmed()
    }

    @Test func unknownMethodsAndInterfaces() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        #expect(raw.call("io.propd.Explode"))
        #expect(errorName(try await raw.receive()) == "org.varlink.service.MethodNotFound")
        #expect(raw.call("org.example.nothing.Call"))
        #expect(errorName(try await raw.receive()) == "org.varlink.service.InterfaceNotFound")
        #expect(raw.call("org.varlink.service.GetInterfaceDescription", ["interface": "io.nope"]))
        #expect(errorName(try await raw.receive()) == "org.varlink.service.InterfaceNotFound")
        try await fixture.assertUnharmed()
    }

    @Test func subscribeWithoutMoreIsExpectedMore() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        #expect(raw.call("io.propd.Subscribe", ["patterns": ["safe.*"]]))
        #expect(errorName(try await raw.receive()) == "org.varlink.service.ExpectedMore")
        try await fixture.assertUnharmed()
    }

    @Test func pipelinedCallsAreAnsweredInOrder() async throws {
        let fixture = try await Fixture()
        let raw = try RawSocket(path: fixture.daemon.socketPath)
        var bytes: [UInt8] = []
        for i in 0..<200 {
            let call: JSONValue = [
                "method": "io.propd.Set", "parameters": ["values": ["pipe.k": .integer(Int64(i))]],
            ]
            bytes += call.jsonBytes + [0]
            let get: JSONValue = ["method": "io.propd.Get", "parameters": ["keys": ["pipe.k"]]]
            bytes += get.jsonBytes + [0]
        }
        raw.send(bytes)
        var lastRevision: Int64 = 1
        for i in 0..<200 {
            guard case .object(let set)? = try await raw.receive()?["parameters"], case .integer(let revision)? = set["revision"]
            else {
                Issue.record("Set \(i) got no revision")
                return
            }
            #expect(revision == lastRevision + 1)
            lastRevision = revision
            guard case .object(let get)? = try await raw.receive()?["parameters"], case .array(let props)? = get["properties"],
                case .object(let prop)? = props.first
            else {
                Issue.record("Get \(i) got no property")
                return
            }
            #expect(prop["value"] == .integer(Int64(i)))
        }
    }

    @Test func aClientThatVanishesMidStreamLeavesNoTrace() async throws {
        let fixture = try await Fixture()
        do {
            let raw = try RawSocket(path: fixture.daemon.socketPath)
            #expect(raw.call("io.propd.Subscribe", ["patterns": ["**"]], more: true))
            _ = try await raw.receive()  // initial safe.value
        }
        for i in 0..<50 { try await fixture.healthy.set(["other.k": .integer(Int64(i))]) }
        #expect(try await fixture.healthy.get(["other.k"])[0].value == 49)
    }
}
