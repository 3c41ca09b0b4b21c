import PropdTestSupport
import PropdCore
import Testing

/// Every command, in human and --json output, against a real daemon.
@Suite struct CommandTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    func run(_ arguments: [String]) throws -> PropctlResult {
        let result = try Propctl.run(arguments, daemon: daemon)
        #expect(result.status == 0, "\(arguments): \(result)")
        return result
    }

    @Test func setPrintsTheRevision() throws {
        #expect(try run(["set", "a", "1", "b", "2"]).stdout == "1\n")
        #expect(try run(["--json", "set", "a", "3"]).json == .object(["revision": 2]))
        #expect(try run(["set", "c", "x", "--expect", "0"]).stdout == "3\n")
        // --json also works after the command name.
        #expect(try run(["set", "c", "y", "--json", "--expect", "3"]).json == .object(["revision": 4]))
    }

    @Test func getSeveralKeysIsAligned() throws {
        _ = try run(["set", "room.temp", "21.5", "name", "Ada"])
        #expect(try run(["get", "room.temp", "name"]).stdout == "room.temp  21.5\nname       Ada\n")
        let json = try run(["--json", "get", "name", "room.temp"]).json
        #expect(json == .object(["properties": [
            ["key": "name", "value": "Ada", "revision": 1, "created": 1],
            ["key": "room.temp", "value": 21.5, "revision": 1, "created": 1],
        ]]))
    }

    @Test func delDeletesAtomically() throws {
        _ = try run(["set", "a", "1", "b", "2"])
        #expect(try run(["del", "a", "b"]).stdout == "2\n")
        #expect(try Propctl.run(["get", "a"], daemon: daemon).status == 1)
        _ = try run(["set", "c", "1"])
        #expect(try run(["--json", "del", "c"]).json == .object(["revision": 4]))
        let missing = try Propctl.run(["del", "c", "nope"], daemon: daemon)
        #expect(missing.status == 1)
    }

    @Test func listIsAlignedAndSorted() throws {
        _ = try run(["set", "room.temp", "21.5", "room.name", "Kitchen", "other", "true"])
        _ = try run(["bind", "room.f", "room.temp.map { $0 * 9 / 5 + 32 }"])
        let human = try run(["list", "room.*"]).stdout
        let lines = human.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(human)")
        #expect(lines[0].hasPrefix("KEY        VALUE    REV"), "\(human)")
        #expect(lines[1].hasPrefix("room.f     70.7     2    = room.temp.map"), "\(human)")
        #expect(lines[2].hasPrefix("room.name  Kitchen  1"), "\(human)")
        #expect(lines[3].hasPrefix("room.temp  21.5     1"), "\(human)")
        let json = try run(["--json", "list"]).json
        guard case .array(let ps)? = json["properties"] else {
            Issue.record("no properties")
            return
        }
        #expect(ps.map { $0["key"] } == ["other", "room.f", "room.name", "room.temp"])
        #expect(ps[1]["binding"] == .string("room.temp.map { $0 * 9 / 5 + 32 }"))
        #expect(json["revision"] == .integer(2))
        #expect(try run(["list", "none.*"]).stdout == "")
    }

    @Test func historyNewestFirst() throws {
        _ = try run(["set", "t", "1"])
        _ = try run(["set", "t", "2"])
        _ = try run(["del", "t"])
        let lines = try run(["history", "t"]).stdout.split(separator: "\n").map(String.init)
        #expect(lines == ["REV  KIND    VALUE", "3    delete", "2    set     2", "1    set     1"], "\(lines)")
        let json = try run(["--json", "history", "t", "--limit", "2"]).json
        #expect(json == .object(["entries": [
            ["key": "t", "kind": "delete", "revision": 3],
            ["key": "t", "kind": "set", "revision": 2, "value": 2],
        ]]))
    }

    @Test func bindUnbindBindings() throws {
        _ = try run(["set", "room.temp", "20"])
        // The revision and sources, then the value the key landed on.
        #expect(try run(["bind", "room.f", "room.temp.map { $0 * 9 / 5 + 32 }"]).stdout
            == "2  room.f (sources room.temp)\nroom.f = 68\n")
        #expect(try run(["get", "room.f"]).stdout == "68\n")
        let json = try run(["--json", "bind", "room.k", "room.temp.map { $0 + 273 }"]).json
        #expect(json == .object([
            "revision": 3, "sources": ["room.temp"],
            "property": [
                "key": "room.k", "value": 293, "revision": 3, "created": 3, "binding": "room.temp.map { $0 + 273 }",
            ],
        ]))
        let table = try run(["bindings"]).stdout
        #expect(table == """
            KEY     SOURCES    EXPRESSION
            room.f  room.temp  room.temp.map { $0 * 9 / 5 + 32 }
            room.k  room.temp  room.temp.map { $0 + 273 }

            """, "\(table)")
        let listed = try run(["--json", "bindings", "room.k"]).json
        #expect(listed == .object(["bindings": [
            ["key": "room.k", "expression": "room.temp.map { $0 + 273 }", "sources": ["room.temp"]],
        ]]))
        #expect(try run(["unbind", "room.f"]).stdout == "4\n")
        #expect(try run(["--json", "unbind", "room.k"]).json == .object(["revision": 5]))
        #expect(try run(["bindings"]).stdout == "")
        // Unbind keeps the last value as a plain property.
        #expect(try run(["get", "room.f"]).stdout == "68\n")
    }

    @Test func bindShowsInvalidExpressionsWithACaret() throws {
        let result = try Propctl.run(["bind", "x", "room.temp.mapp { $0 }"], daemon: daemon)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("io.propd.BindingInvalid"), "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        guard let source = lines.firstIndex(where: { $0.hasSuffix("| room.temp.mapp { $0 }") }), source + 1 < lines.count
        else {
            Issue.record("no excerpt: \(result)")
            return
        }
        #expect(lines[source + 1].hasSuffix("^"), "\(result)")
        let cycle = try Propctl.run(["bind", "a", "a.map { $0 }"], daemon: daemon)
        #expect(cycle.status == 1)
        #expect(cycle.stderr.contains("io.propd.BindingCycle"), "\(cycle)")
    }

    @Test func graphIsDOT() throws {
        _ = try run(["set", "form.account", "adalovelace", "form.password", "x"])
        _ = try run(["bind", "ui.login.enabled",
                     "combineLatest(form.account, form.password).map { a, p in len(a) > 5 && len(p) > 5 }"])
        _ = try run(["bind", "ui.ratio", "form.account.map { len($0) / 0 }"])
        let dot = try run(["graph"]).stdout
        #expect(dot.hasPrefix("digraph propd {"), "\(dot)")
        #expect(dot.contains(#""form.account" -> "ui.login.enabled" [label="combineLatest → map"]"#), "\(dot)")
        #expect(dot.contains(#""form.password" -> "ui.login.enabled""#), "\(dot)")
        #expect(dot.contains(#""form.account" [shape=ellipse]"#), "\(dot)")
        #expect(dot.contains(#""ui.login.enabled" [shape=box"#), "\(dot)")
        // The error state is highlighted.
        #expect(dot.contains(##""ui.ratio" [shape=box, style="rounded,filled", fillcolor="#fde2e2", color="#c0392b""##), "\(dot)")
        let json = try run(["--json", "graph", "ui.login.*"]).json
        guard case .array(let edges)? = json["edges"] else {
            Issue.record("no edges")
            return
        }
        #expect(edges.count == 2)
        #expect(edges.first?["operators"] == ["combineLatest", "map"])
    }

    @Test func statsBothWays() throws {
        _ = try run(["set", "a", "1"])
        let human = try run(["stats"]).stdout
        #expect(human.contains("revision       1"), "\(human)")
        #expect(human.contains("keys           1"), "\(human)")
        #expect(human.contains("socket         \(daemon.socketPath)"), "\(human)")
        #expect(human.contains("role           standalone\n"), "\(human)")
        let json = try run(["--json", "stats"]).json
        #expect(json["revision"] == .integer(1))
        #expect(json["keys"] == .integer(1))
        #expect(json["databaseBytes"] != nil)
        #expect(json["uptimeSeconds"] != nil)
        #expect(json["role"] == "standalone")
        #expect(json["timerHolder"] == nil)
    }

    @Test func socketFlagWinsOverTheEnvironment() throws {
        _ = try run(["set", "a", "1"])
        let result = try Propctl.run(["--socket", daemon.socketPath, "get", "a"], socket: "/nonexistent/propd.sock")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "1\n")
    }

    @Test func noColourWhenNotATerminal() throws {
        _ = try run(["set", "a", "1"])
        #expect(!(try run(["list"]).stdout.contains("\u{1B}[")))
    }
}
