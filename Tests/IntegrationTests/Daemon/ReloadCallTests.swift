import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `Reload()` (contract 6.4), `propctl reload` and `propd --check`: the
/// errors as FILE:LINE:COLUMN: message, a cycle named at the binding that
/// closes it, a bad file changing nothing while good files apply.
@Suite struct ReloadCallTests {
    static var propctl: String { PropdProcess.productsDirectory.appendingPathComponent("propctl").path }

    struct Fixture {
        let dir: ScratchDirectory
        let paths: DaemonPaths
        let daemon: Spawned

        init(_ label: String) async throws {
            dir = try ScratchDirectory(label)
            paths = DaemonPaths(dir)
            try dir.directory("bindings.d", mode: 0o755)
            try dir.write("bindings.d/a.prop", "r.double = r.x.map { x in x * 2 }\n")
            let inbox = try NotifyInbox(path: dir.file("notify.sock"))
            daemon = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
            try await daemon.ready(inbox)
        }

        func propctl(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try Command.run(ReloadCallTests.propctl, ["--socket", paths.socket] + arguments, environment: PropdLaunch.environment([:]))
        }
    }

    @Test func reloadAnswersWithTheErrorsAndAppliesTheGoodFiles() async throws {
        let f = try await Fixture("reload-call")
        let client = try await PropdClient.connect(to: f.paths.socket)
        try await client.set(["r.x": 5])  // 2 (loading a.prop at start was revision 1)

        let clean = try await client.reload()
        #expect(clean.errors == [] && clean.refused == [])
        #expect(clean.revision == 2)

        // One good change, one syntax error, one cycle (closed by c.b on line 4).
        try f.dir.write("bindings.d/a.prop", "r.double = r.x.map { x in x * 3 }\n")
        try f.dir.write("bindings.d/bad.prop", "\n# broken\nr.bad = r.x.mapp { $0 }\n")
        try f.dir.write("bindings.d/cycle.prop", "c.a = c.b.map { $0 + 1 }\n\n# closes it:\nc.b =\n    c.a.map { $0 }\n")
        let reply = try await client.reload()
        let bindings = f.paths.bindings
        #expect(reply.errors.count == 2, "\(reply.errors)")
        #expect(reply.errors.contains { $0.hasPrefix("\(bindings)/bad.prop:3:") && $0.contains("'mapp'") }, "\(reply.errors)")
        #expect(reply.errors.contains("\(bindings)/cycle.prop:4:1: binding of c.b would close a cycle: c.b -> c.a -> c.b"),
            "\(reply.errors)")
        // The good file applied as one revision; the bad ones changed nothing.
        #expect(reply.revision == 3)
        #expect(try await client.get(["r.double"]).first?.value == 15)
        #expect(try await client.bindings().map(\.key) == ["r.double"])

        // propctl reload: the errors on stderr, exit 1; fixed files: exit 0.
        let failing = try f.propctl(["reload"])
        #expect(failing.status == 1, "\(failing.output)")
        #expect(failing.output.contains("propctl: error: \(bindings)/cycle.prop:4:1: binding of c.b would close a cycle"), "\(failing.output)")
        try FileManager.default.removeItem(atPath: f.dir.file("bindings.d/bad.prop"))
        try f.dir.write("bindings.d/cycle.prop", "c.a = c.b.map { $0 + 1 }\n")
        let fixed = try f.propctl(["--json", "reload"])
        #expect(fixed.status == 0, "\(fixed.output)")
        #expect(try JSONValue(parsing: fixed.output)["errors"] == .array([]), "\(fixed.output)")
        #expect(try await client.bindings().map(\.key) == ["c.a", "r.double"])
        await client.close()
        f.daemon.signal(SIGTERM)
        #expect(try await f.daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    @Test func aConfigErrorIsReportedAndTheOldConfigKept() async throws {
        let dir = try ScratchDirectory("reload-config")
        let paths = DaemonPaths(dir)
        try dir.write("propd.conf", "history-per-key: 10\n")
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            paths.arguments + ["--config", dir.file("propd.conf")], environment: ["NOTIFY_SOCKET": inbox.path],
            logPath: paths.log)
        try await daemon.ready(inbox)
        try dir.write("propd.conf", "history-per-key: 10\ndurabilty: full\n")
        let client = try await PropdClient.connect(to: paths.socket)
        let reply = try await client.reload()
        #expect(reply.errors.count == 1 && reply.errors[0].hasPrefix(dir.file("propd.conf") + ":2:"), "\(reply.errors)")
        await client.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    @Test(.enabled(if: TestUser.canSwitch && TestUser.python != nil, "needs root, setpriv and python3 to act as another user"))
    func onlyRootAndTheDaemonsUserMayReload() async throws {
        let f = try await Fixture("reload-peer")
        chmod(f.paths.socket, 0o666)
        let peer = try PeerClient(user: try TestUser.ensure("propd-test-a"), socket: f.paths.socket, logPath: f.dir.file("peer.log"))
        let reply = try await peer.call("Reload")
        #expect(reply["error"] == "org.varlink.service.PermissionDenied", "\(reply)")
        f.daemon.signal(SIGTERM)
        _ = try await f.daemon.exit(timeout: .seconds(30))
    }
}

/// `propd --check [--config FILE] [--bindings DIR]`: validates without starting.
@Suite struct CheckFlagTests {
    func check(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Command.run(PropdLaunch.executable, ["--check"] + arguments, environment: PropdLaunch.environment([:]))
    }

    @Test func validFilesExitZero() throws {
        let dir = try ScratchDirectory("check-ok")
        try dir.directory("b", mode: 0o755)
        try dir.write("b/login.prop", "ui.ok = combineLatest(a, b).map { x, y in x && y }\nui.not = ui.ok.map { !$0 }\n")
        try dir.write("propd.conf", "history-per-key: 10\n")
        let result = try check(["--config", dir.file("propd.conf"), "--bindings", dir.file("b"), "--socket", dir.file("s")])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("valid"), "\(result.output)")
        #expect(result.output.contains("2 binding(s)"), "\(result.output)")
        // Nothing was started: no socket.
        #expect(!exists(dir.file("s")))
    }

    @Test func errorsExitOneWithTheirPlaces() throws {
        let dir = try ScratchDirectory("check-bad")
        try dir.directory("b", mode: 0o755)
        try dir.write("b/one.prop", "x.a = x.b.map { $0 }\n")
        try dir.write("b/two.prop", "# comment\nx.b = x.a.map { $0 }\n")
        try dir.write("b/three.prop", "x.c = x.a.map { $0 +* 1 }\n")
        try dir.write("propd.conf", "durability: fast\n")
        let result = try check(["--config", dir.file("propd.conf"), "--bindings", dir.file("b")])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("\(dir.file("propd.conf")):1:"), "\(result.output)")
        #expect(result.output.contains("\(dir.file("b"))/three.prop:1:"), "\(result.output)")
        #expect(result.output.contains("\(dir.file("b"))/two.prop:2:1: binding of x.b would close a cycle: x.b -> x.a -> x.b"),
            "\(result.output)")
        // A missing config file named with --config is an error too.
        let missing = try check(["--config", dir.file("absent.conf"), "--bindings", dir.file("b")])
        #expect(missing.status == 1 && missing.output.contains("absent.conf"), "\(missing.output)")
    }
}
