import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// Contract 6.4's rules for `set` VALUEs, through the real binary: what looks
/// like JSON must be JSON (unless --string), --strict, `-` and `@FILE`,
/// negative numbers without `--`.
@Suite struct StrictValueTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    func stored(_ key: String) throws -> JSONValue? {
        let result = try Propctl.run(["--json", "get", key], daemon: daemon)
        guard result.status == 0, case .array(let properties)? = try result.json["properties"] else { return nil }
        return properties.first?["value"]
    }

    func revision() throws -> Int64? {
        let stats = try Propctl.run(["--json", "stats"], daemon: daemon)
        guard case .integer(let revision)? = try stats.json["revision"] else { return nil }
        return revision
    }

    @Test(arguments: [#"{"mode": eco}"#, "[1, 2", #""unterminated"#, "01234", "1.2.3", "-e", "12abc", "  {oops"])
    func lookingLikeJSONButNotIsAUsageError(value: String) throws {
        _ = try Propctl.run(["set", "before", "1"], daemon: daemon)
        let before = try revision()
        let result = try Propctl.run(["set", "k", value, "other", "2"], daemon: daemon)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("the value of k looks like JSON but does not parse"), "\(result)")
        #expect(result.stderr.contains("--string"), "\(result)")
        // Nothing was sent: no key written, no revision consumed.
        #expect(try stored("k") == nil)
        #expect(try stored("other") == nil)
        #expect(try revision() == before)
    }

    @Test func stringFlagStoresWhatLooksLikeJSONAsText() throws {
        let result = try Propctl.run(["set", "cfg", #"{"mode": eco}"#, "zip", "01234", "--string"], daemon: daemon)
        #expect(result.status == 0, "\(result)")
        #expect(try stored("cfg") == .string(#"{"mode": eco}"#))
        #expect(try stored("zip") == .string("01234"))
    }

    @Test func plainWordsAreStillStrings() throws {
        let result = try Propctl.run(["set", "name", "Ada", "greeting", "hello world", "path", "/tmp/x"], daemon: daemon)
        #expect(result.status == 0, "\(result)")
        #expect(try stored("name") == .string("Ada"))
        #expect(try stored("path") == .string("/tmp/x"))
    }

    @Test func strictRefusesEveryValueThatIsNotJSON() throws {
        let refused = try Propctl.run(["set", "name", "Ada", "--strict"], daemon: daemon)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("not JSON (--strict)"), "\(refused)")
        #expect(try stored("name") == nil)
        let accepted = try Propctl.run(["set", "name", #""Ada""#, "n", "3", "--strict"], daemon: daemon)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(try stored("name") == .string("Ada"))
        #expect(try stored("n") == .integer(3))
        let both = try Propctl.run(["set", "x", "1", "--strict", "--string"], daemon: daemon)
        #expect(both.status == 2, "\(both)")
    }

    @Test func negativeNumbersNeedNoTerminator() throws {
        let result = try Propctl.run(["set", "t.low", "-40", "t.frac", "-0.5", "t.exp", "-1e3"], daemon: daemon)
        #expect(result.status == 0, "\(result)")
        #expect(try stored("t.low") == .integer(-40))
        #expect(try stored("t.frac") == .double(-0.5))
        #expect(try stored("t.exp") == .integer(-1000))
        // The usual terminator works too, and a misspelt flag is still a usage error.
        #expect(try Propctl.run(["set", "--", "t.low", "-7"], daemon: daemon).status == 0)
        #expect(try stored("t.low") == .integer(-7))
        let misspelt = try Propctl.run(["set", "t.low", "1", "--expcet", "3"], daemon: daemon)
        #expect(misspelt.status == 2, "\(misspelt)")
        #expect(misspelt.stderr.contains("Unknown option '--expcet'"), "\(misspelt)")
        #expect(try stored("t.low") == .integer(-7))
    }

    @Test func dashReadsTheValueFromStandardInput() throws {
        let json = try Propctl.run(["set", "cfg", "-"], daemon: daemon, stdin: "{\"mode\": \"eco\"}\n")
        #expect(json.status == 0, "\(json)")
        #expect(try stored("cfg") == .object(["mode": "eco"]))
        // Text: one final newline is dropped, inner ones stay.
        let text = try Propctl.run(["set", "motd", "-"], daemon: daemon, stdin: "line one\nline two\n")
        #expect(text.status == 0, "\(text)")
        #expect(try stored("motd") == .string("line one\nline two"))
        let twice = try Propctl.run(["set", "a", "-", "b", "-"], daemon: daemon, stdin: "1")
        #expect(twice.status == 2, "\(twice)")
    }

    @Test func atFileReadsTheValueFromAFile() throws {
        let file = daemon.directory + "/value.json"
        try "[1, 2, 3]\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Propctl.run(["set", "list", "@" + file, "--strict"], daemon: daemon)
        #expect(result.status == 0, "\(result)")
        #expect(try stored("list") == .array([1, 2, 3]))
        let missing = try Propctl.run(["set", "list", "@" + daemon.directory + "/absent"], daemon: daemon)
        #expect(missing.status == 2, "\(missing)")
        #expect(missing.stderr.contains("cannot read"), "\(missing)")
        // A file's text follows the same rules as an argument.
        try "{broken\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try Propctl.run(["set", "list", "@" + file], daemon: daemon).status == 2)
        #expect(try stored("list") == .array([1, 2, 3]))
    }

    /// A value just under the daemon's message limit (8 MiB by default)
    /// goes through stdin; one over it is refused by the daemon, whole.
    @Test func valuesUpToTheMessageLimitThroughStdin() throws {
        let big = String(repeating: "x", count: 8 * 1024 * 1024 - 4096)
        let result = try Propctl.run(["set", "big", "-", "--string"], daemon: daemon, stdin: big, timeout: .seconds(120))
        #expect(result.status == 0, "\(result.status) \(result.stderr)")
        let back = try Propctl.run(["get", "big"], daemon: daemon, timeout: .seconds(120))
        #expect(back.stdout == big + "\n")
        let tooBig = try Propctl.run(
            ["set", "big", "-", "--string"], daemon: daemon, stdin: big + String(repeating: "y", count: 8192),
            timeout: .seconds(120))
        #expect(tooBig.status == 1, "\(tooBig.status) \(tooBig.stderr)")
        #expect(tooBig.stderr.contains("LimitExceeded"), "\(tooBig.stderr)")
        #expect(try Propctl.run(["get", "big"], daemon: daemon, timeout: .seconds(120)).stdout == big + "\n")
    }
}
