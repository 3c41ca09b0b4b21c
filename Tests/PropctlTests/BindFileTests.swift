import PropdTestSupport
import PropdCore
import Testing

/// bind --file: a whole .prop file, all or nothing, errors at file:line:column.
@Suite struct BindFileTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    static let good = """
        # the login form
        ui.login.enabled = combineLatest(form.account, form.password)
            .map { a, p in len(a) > 5 && len(p) > 5 }   # both long enough

        room.f = room.temp.map { $0 * 9 / 5 + 32 }
        """

    @Test func declaresEveryBinding() throws {
        let file = try TemporaryFile(named: "login.prop", text: Self.good)
        _ = try Propctl.run(["set", "room.temp", "20", "form.account", "adalovelace", "form.password", "secret!"],
            daemon: daemon)
        let result = try Propctl.run(["bind", "--file", file.path], daemon: daemon)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("bound 2 from \(file.path): ui.login.enabled, room.f"), "\(result)")
        #expect(try Propctl.run(["get", "ui.login.enabled", "room.f"], daemon: daemon).stdout
            == "ui.login.enabled  true\nroom.f            68\n")
        let bindings = try Propctl.run(["--json", "bindings", "ui.**"], daemon: daemon).json
        #expect(bindings == .object(["bindings": [[
            "key": "ui.login.enabled", "sources": ["form.account", "form.password"],
            "expression": "combineLatest(form.account, form.password)\n    .map { a, p in len(a) > 5 && len(p) > 5 }",
        ]]]))
        let json = try Propctl.run(["--json", "bind", "--file", file.path], daemon: daemon).json
        #expect(json["bindings"] == [
            ["key": "ui.login.enabled", "sources": ["form.account", "form.password"]],
            ["key": "room.f", "sources": ["room.temp"]],
        ])
    }

    @Test func anErrorShowsFileLineColumnTheLineAndACaretAndBindsNothing() throws {
        let text = """
            # two good bindings, then a bad one on a continuation line
            room.f = room.temp.map { $0 * 9 / 5 + 32 }
            room.k = room.temp.map { $0 + 273 }
            ui.bad = combineLatest(form.account, form.password)
                .mapp { a, p in a }
            """
        let file = try TemporaryFile(named: "bad.prop", text: text)
        _ = try Propctl.run(["set", "room.temp", "20", "room.k", "\"kept\""], daemon: daemon)
        let before = try Propctl.run(["--json", "list"], daemon: daemon).json
        let result = try Propctl.run(["bind", "--file", file.path], daemon: daemon)
        #expect(result.status == 1, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("propctl: \(file.path):5:6: error: io.propd.BindingInvalid: ") == true, "\(result)")
        #expect(!(lines.first?.contains(" at 2:") ?? true), "the expression-relative position is not shown: \(result)")
        #expect(lines.count >= 3)
        #expect(lines[1] == "propctl:  5 |     .mapp { a, p in a }", "\(result)")
        #expect(lines[2] == "propctl:    |      ^", "\(result)")
        #expect(result.stderr.contains("nothing was bound"), "\(result)")
        // Nothing changed: no bindings; room.k keeps its plain value.
        #expect(try Propctl.run(["bindings"], daemon: daemon).stdout == "")
        #expect(try Propctl.run(["get", "room.k"], daemon: daemon).stdout == "kept\n")
        let after = try Propctl.run(["--json", "list"], daemon: daemon).json
        #expect(Self.valuesOnly(after) == Self.valuesOnly(before))
    }

    @Test func aRefusedFilePutsReplacedBindingsBack() throws {
        _ = try Propctl.run(["set", "room.temp", "20"], daemon: daemon)
        #expect(try Propctl.run(["bind", "room.f", "room.temp.map { $0 * 9 / 5 + 32 }"], daemon: daemon).status == 0)
        let file = try TemporaryFile(named: "replace.prop", text: """
            room.f = room.temp.map { $0 + 1000 }
            room.bad = room.temp.map { $0 + }
            """)
        let result = try Propctl.run(["bind", "--file", file.path], daemon: daemon)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("\(file.path):2:"), "\(result)")
        let bindings = try Propctl.run(["--json", "bindings"], daemon: daemon).json
        #expect(bindings == .object(["bindings": [
            ["key": "room.f", "expression": "room.temp.map { $0 * 9 / 5 + 32 }", "sources": ["room.temp"]],
        ]]))
        #expect(try Propctl.run(["get", "room.f"], daemon: daemon).stdout == "68\n")
        #expect(try Propctl.run(["get", "room.bad"], daemon: daemon).status == 1)
    }

    @Test func aFileThatIsNotBindingsIsAUsageError() throws {
        let file = try TemporaryFile(named: "junk.prop", text: "room.f = room.temp\n  \nthis is not a binding\n")
        let result = try Propctl.run(["bind", "--file", file.path], daemon: daemon)
        // Continuation lines belong to the previous binding: the daemon sees
        // "room.temp\n\nthis is not a binding" and refuses it at line 3.
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("\(file.path):3:"), "\(result)")
        let orphan = try TemporaryFile(named: "orphan.prop", text: "# comment\n   .map { $0 }\n")
        let refused = try Propctl.run(["bind", "--file", orphan.path], daemon: daemon)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("\(orphan.path):2:4: error: expected 'key = expression'"), "\(refused)")
        #expect(refused.stderr.contains(" 2 |    .map { $0 }"), "\(refused)")
        let twice = try TemporaryFile(named: "twice.prop", text: "a = b\na = c\n")
        let duplicate = try Propctl.run(["bind", "--file", twice.path], daemon: daemon)
        #expect(duplicate.status == 2, "\(duplicate)")
        #expect(duplicate.stderr.contains("'a' is bound twice in this file (first at line 1)"), "\(duplicate)")
    }

    static func valuesOnly(_ list: JSONValue) -> [JSONValue] {
        guard case .array(let ps)? = list["properties"] else { return [] }
        return ps.map { p in
            guard case .object(var o) = p else { return p }
            o["revision"] = nil
            o["created"] = nil
            return .object(o)
        }
    }
}
