import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// 0 ok, 1 daemon error (name and parameters in plain words), 2 usage, 3 unreachable.
@Suite struct ExitCodeTests {
    @Test func daemonErrorsAreOneWithTheirNameAndParameters() throws {
        let daemon = try PropdProcess()
        let missing = try Propctl.run(["get", "room.temp"], daemon: daemon)
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("io.propd.NoSuchKey"), "\(missing)")
        #expect(missing.stderr.contains("no such key room.temp"), "\(missing)")

        #expect(try Propctl.run(["set", "room.temp", "20"], daemon: daemon).status == 0)
        let rev = try Propctl.run(["--json", "get", "room.temp"], daemon: daemon).json
        guard case .array(let ps)? = rev["properties"], case .integer(let r)? = ps.first?["revision"] else {
            Issue.record("no revision")
            return
        }
        let mismatch = try Propctl.run(["set", "room.temp", "25", "--expect", String(r + 5)], daemon: daemon)
        #expect(mismatch.status == 1)
        #expect(mismatch.stderr.contains("revision mismatch on room.temp: expected \(r + 5), found \(r)"), "\(mismatch)")
        // Nothing changed.
        #expect(try Propctl.run(["get", "room.temp"], daemon: daemon).stdout == "20\n")

        let badKey = try Propctl.run(["set", "bad..key", "1"], daemon: daemon)
        #expect(badKey.status == 1)
        #expect(badKey.stderr.contains("io.propd.InvalidKey"), "\(badKey)")

        #expect(try Propctl.run(["bind", "room.f", "room.temp.map { $0 + 1 }"], daemon: daemon).status == 0)
        let derived = try Propctl.run(["set", "room.f", "3"], daemon: daemon)
        #expect(derived.status == 1)
        #expect(derived.stderr.contains("io.propd.KeyIsDerived: room.f is derived"), "\(derived)")

        let badPattern = try Propctl.run(["list", "a.**.b"], daemon: daemon)
        #expect(badPattern.status == 1)
        #expect(badPattern.stderr.contains("io.propd.InvalidPattern"), "\(badPattern)")
    }

    @Test(arguments: [
        ["set", "a"],  // a key without a value
        ["set"],
        ["get"],
        ["frobnicate"],
        ["list", "--no-such-flag"],
        ["watch"],
        ["watch", "a.*", "--since", "3", "--replay", "2"],
        ["bind", "a"],
        ["bind", "a", "b.map { $0 }", "--file", "x.prop"],
        ["history", "a", "--limit", "0"],
        ["set", "a", "1", "--expect", "minus"],
    ])
    func usageErrorsAreTwo(arguments: [String]) throws {
        // No daemon is needed: usage errors are found before connecting.
        let result = try Propctl.run(arguments, socket: "/nonexistent/propd.sock")
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(!result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
    }

    @Test func unreadableFilesAreUsageErrors() throws {
        let load = try Propctl.run(["load", "/nonexistent/dump.json"], socket: "/nonexistent/propd.sock")
        #expect(load.status == 2, "\(load)")
        #expect(load.stderr.contains("cannot read /nonexistent/dump.json"), "\(load)")
    }

    @Test func unreachableDaemonIsThreeWithAHint() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("propctl-none-\(UUID().uuidString.prefix(8))").path
        let socket = dir + "/propd.sock"
        for command in [["get", "a"], ["set", "a", "1"], ["list"], ["watch", "a"], ["stats"], ["dump"]] {
            let viaEnvironment = try Propctl.run(command, socket: socket)
            #expect(viaEnvironment.status == 3, "\(command): \(viaEnvironment)")
            #expect(viaEnvironment.stderr.contains(socket), "\(viaEnvironment)")
            #expect(viaEnvironment.stderr.contains("PROPD_SOCKET"), "\(viaEnvironment)")
            #expect(viaEnvironment.stderr.contains("propd --socket"), "\(viaEnvironment)")
        }
        let viaFlag = try Propctl.run(["--socket", socket, "get", "a"])
        #expect(viaFlag.status == 3)
        #expect(viaFlag.stderr.contains("\(socket) (given with --socket)"), "\(viaFlag)")
    }

    @Test func helpAndVersionAreZero() throws {
        let help = try Propctl.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("watch"))
        #expect(help.stdout.contains("Exit codes"))
        for command in ["set", "get", "del", "list", "watch", "history", "bind", "unbind", "bindings", "graph", "stats",
                        "dump", "load"] {
            let sub = try Propctl.run([command, "--help"])
            #expect(sub.status == 0, "\(command): \(sub)")
            #expect(sub.stdout.contains("Example"), "\(command) --help has examples")
        }
        #expect(try Propctl.run(["--version"]).status == 0)
    }

    @Test func completionScriptsComeFromTheSameDefinitions() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try Propctl.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("watch"), "\(shell)")
            #expect(script.stdout.contains("no-initial"), "\(shell)")
        }
    }
}
