import PropdTestSupport
import PropdCore
import Testing

/// VALUE is JSON when it parses, else a string; --string forces a string.
@Suite struct ValueParsingTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    func stored(_ key: String) throws -> JSONValue? {
        let result = try Propctl.run(["--json", "get", key], daemon: daemon)
        #expect(result.status == 0, "\(result)")
        guard case .array(let properties)? = try result.json["properties"] else { return nil }
        return properties.first?["value"]
    }

    @Test func numbersStringsAndJSON() throws {
        let set = try Propctl.run(
            ["set", "n.int", "21", "n.real", "21.5", "s.name", "Ada", "s.words", "hello world", "b.flag", "true",
             "o.config", #"{"mode": "eco", "level": 3}"#, "a.list", "[1, 2]", "z.null", "null", "q.quoted", #""21""#],
            daemon: daemon)
        #expect(set.status == 0, "\(set)")
        #expect(try stored("n.int") == .integer(21))
        if case .integer? = try stored("n.int") {} else { Issue.record("21 must stay an integer") }
        #expect(try stored("n.real") == .double(21.5))
        #expect(try stored("s.name") == .string("Ada"))
        #expect(try stored("s.words") == .string("hello world"))
        #expect(try stored("b.flag") == .bool(true))
        #expect(try stored("o.config") == .object(["mode": "eco", "level": 3]))
        #expect(try stored("a.list") == .array([1, 2]))
        #expect(try stored("z.null") == .null)
        #expect(try stored("q.quoted") == .string("21"))
        _ = try Propctl.run(["set", "u.text", "café ☕ \"quoted\""], daemon: daemon)
        #expect(try stored("u.text") == .string("café ☕ \"quoted\""))
        #expect(try Propctl.run(["get", "u.text"], daemon: daemon).stdout == "café ☕ \"quoted\"\n")
    }

    @Test func stringFlagForcesStrings() throws {
        let set = try Propctl.run(["set", "zip", "01234", "count", "21", "--string"], daemon: daemon)
        #expect(set.status == 0, "\(set)")
        #expect(try stored("zip") == .string("01234"))
        #expect(try stored("count") == .string("21"))
    }

    @Test func getOfOneKeyPrintsTheRawValue() throws {
        _ = try Propctl.run(["set", "name", "Ada", "temp", "21.5", "cfg", #"{"a":1}"#], daemon: daemon)
        #expect(try Propctl.run(["get", "name"], daemon: daemon).stdout == "Ada\n")
        #expect(try Propctl.run(["get", "temp"], daemon: daemon).stdout == "21.5\n")
        #expect(try Propctl.run(["get", "cfg"], daemon: daemon).stdout == "{\"a\":1}\n")
        // What a shell script does with it.
        let shell = try Propctl.runProcess(
            "/bin/sh", ["-c", "echo \"hello $(\"$0\" get name)\"", Propctl.executable],
            environment: ["PROPD_SOCKET": daemon.socketPath, "PATH": "/usr/bin:/bin"])
        #expect(shell.stdout == "hello Ada\n", "\(shell)")
    }
}
