import PropdTestSupport
import PropdCore
import Testing

/// dump -> a fresh daemon -> load gives the same properties and bindings;
/// a load that fails changes nothing.
@Suite struct DumpLoadTests {
    @Test func roundTripsToAFreshDaemon() throws {
        let source = try PropdProcess()
        for arguments in [
            ["set", "room.temp", "21.5", "name", "Ada", "cfg", #"{"mode":"eco","levels":[1,2]}"#, "n", "21", "z", "null"],
            ["set", "form.account", "adalovelace", "form.password", "x"],
            ["bind", "room.f", "room.temp.map { $0 * 9 / 5 + 32 }"],
            ["bind", "ui.login.enabled", "combineLatest(form.account, form.password)\n  .map { a, p in len(a) > 5 && len(p) > 5 }"],
            ["bind", "ui.broken", "name.map { $0 / 2 }"],
        ] {
            let r = try Propctl.run(arguments, daemon: source)
            #expect(r.status == 0, "\(arguments): \(r)")
        }
        let dump = try Propctl.run(["dump"], daemon: source)
        #expect(dump.status == 0, "\(dump)")
        let document = try dump.json
        #expect(document["format"] == "propd-dump")
        #expect(document["version"] == 1)

        let target = try PropdProcess()
        let file = try TemporaryFile(named: "dump.json", text: dump.stdout)
        let load = try Propctl.run(["load", file.path], daemon: target)
        #expect(load.status == 0, "\(load)")
        #expect(load.stdout.contains("loaded 7 properties and 3 bindings"), "\(load)")

        let listA = try Propctl.run(["--json", "list"], daemon: source).json
        let listB = try Propctl.run(["--json", "list"], daemon: target).json
        #expect(BindFileTests.valuesOnly(listA) == BindFileTests.valuesOnly(listB))
        #expect(BindFileTests.valuesOnly(listA).count == 10)
        #expect(try Propctl.run(["bindings"], daemon: source).stdout == Propctl.run(["bindings"], daemon: target).stdout)
        #expect(try Propctl.run(["--json", "bindings"], daemon: source).json
            == Propctl.run(["--json", "bindings"], daemon: target).json)

        // From stdin, into a third daemon, in JSON mode.
        let third = try PropdProcess()
        let piped = try Propctl.run(["--json", "load", "-"], daemon: third, stdin: dump.stdout)
        #expect(piped.status == 0, "\(piped)")
        #expect(try piped.json["bindings"] == 3)
        #expect(BindFileTests.valuesOnly(try Propctl.run(["--json", "list"], daemon: third).json)
            == BindFileTests.valuesOnly(listA))
    }

    @Test func aRefusedLoadChangesNothing() throws {
        let target = try PropdProcess()
        _ = try Propctl.run(["set", "keep", "1", "name", "Grace"], daemon: target)
        let before = try Propctl.run(["--json", "list"], daemon: target).json
        let dump = """
            {"format": "propd-dump", "version": 1, "revision": 9,
             "properties": [{"key": "name", "value": "Ada", "revision": 1, "created": 1},
                            {"key": "new.key", "value": 5, "revision": 1, "created": 1}],
             "bindings": [{"key": "good", "expression": "new.key.map { $0 + 1 }", "sources": ["new.key"]},
                          {"key": "bad", "expression": "new.key.mapp { $0 }", "sources": []}]}
            """
        let file = try TemporaryFile(named: "bad.json", text: dump)
        let load = try Propctl.run(["load", file.path], daemon: target)
        #expect(load.status == 1, "\(load)")
        #expect(load.stderr.contains("io.propd.BindingInvalid"), "\(load)")
        #expect(load.stderr.contains("refused binding bad"), "\(load)")
        #expect(try Propctl.run(["bindings"], daemon: target).stdout == "")
        let after = try Propctl.run(["--json", "list"], daemon: target).json
        #expect(BindFileTests.valuesOnly(after) == BindFileTests.valuesOnly(before), "\(after)")
    }

    @Test func aFileThatIsNotADumpIsAUsageError() throws {
        let target = try PropdProcess()
        for text in ["not json", #"{"format": "other"}"#, #"{"format": "propd-dump", "version": 99, "properties": [], "bindings": []}"#] {
            let file = try TemporaryFile(named: "x.json", text: text)
            let load = try Propctl.run(["load", file.path], daemon: target)
            #expect(load.status == 2, "\(text): \(load)")
        }
        #expect(try Propctl.run(["--json", "stats"], daemon: target).json["revision"] == 0)
    }
}
