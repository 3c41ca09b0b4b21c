import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP: binding files and the config file read again; a bad file is
/// logged and changes nothing.
@Suite struct ReloadTests {
    /// One SIGHUP, awaited through the notify socket: RELOADING=1, then READY=1 once done.
    static func reload(_ daemon: Spawned, _ inbox: NotifyInbox) async throws {
        daemon.signal(SIGHUP)
        try await inbox.wait(for: "RELOADING=1", timeout: .seconds(30))
        try await inbox.wait(for: "READY=1", timeout: .seconds(30))
    }

    @Test func sighupAppliesAddedChangedAndRemovedBindings() async throws {
        let dir = try ScratchDirectory("reload")
        let paths = DaemonPaths(dir)
        try dir.directory("bindings.d", mode: 0o755)
        try dir.write(
            "bindings.d/a.prop",
            """
            # two bindings
            r.double = r.x.map { x in x * 2 }
            r.gone = r.x.map { x in x + 100 }
            """)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        let client = try await PropdClient.connect(to: paths.socket)
        try await client.set(["r.x": 5])
        #expect(try await client.bindings().map(\.key) == ["r.double", "r.gone"])
        #expect(try await client.get(["r.double", "r.gone"]).map(\.value) == [10, 105])

        // Change one binding, remove one, add one in a new file.
        try dir.write("bindings.d/a.prop", "r.double = r.x.map { x in x * 3 }\n")
        try dir.write("bindings.d/b.prop", "r.added = r.x.map { x in x - 1 }\n")
        try await Self.reload(daemon, inbox)
        let after = try await client.bindings()
        #expect(after.map(\.key) == ["r.added", "r.double"])
        #expect(after.map(\.expression) == ["r.x.map { x in x - 1 }", "r.x.map { x in x * 3 }"])
        #expect(try await client.get(["r.double", "r.added"]).map(\.value) == [15, 4])
        // The removed binding's key keeps its last value as a plain property.
        let gone = try #require(try await client.get(["r.gone"]).first)
        #expect(gone.binding == nil && gone.value == 105)

        // A file with a syntax error: logged with its place, nothing changes.
        let logBefore = daemon.log.count
        try dir.write("bindings.d/a.prop", "r.double = r.x.map { x in x * 4 }\nr.broken = r.x.map { x in x * }\n")
        try await Self.reload(daemon, inbox)
        #expect(try await client.bindings() == after)
        let logged = String(daemon.log.dropFirst(logBefore))
        #expect(logged.contains("<3>") && logged.contains("a.prop:2:"), "\(logged)")
        try await client.set(["r.x": 7])
        #expect(try await client.get(["r.double", "r.added"]).map(\.value) == [21, 6])

        // Fixed again: applied.
        try dir.write("bindings.d/a.prop", "r.double = r.x.map { x in x * 4 }\n")
        try await Self.reload(daemon, inbox)
        #expect(try await client.get(["r.double"]).first?.value == 28)
        await client.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// A config that turns bad is logged on reload and the old one stays in
    /// force: propd keeps serving with its old bindings directory.
    @Test func aBadConfigOnReloadKeepsTheOldOne() async throws {
        let dir = try ScratchDirectory("reload-conf")
        let paths = DaemonPaths(dir)
        try dir.directory("one.d", mode: 0o755)
        try dir.directory("two.d", mode: 0o755)
        try dir.write("one.d/x.prop", "c.one = c.src.map { v in v }\n")
        try dir.write("two.d/x.prop", "c.two = c.src.map { v in v }\n")
        let config = dir.file("propd.conf")
        try dir.write("propd.conf", "socket: \(paths.socket)\ndatabase: \(paths.database)\nbindings: \(dir.file("one.d"))\n")
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(["--config", config], environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        let client = try await PropdClient.connect(to: paths.socket)
        #expect(try await client.bindings().map(\.key) == ["c.one"])

        try dir.write("propd.conf", "socket: \(paths.socket)\ndatabase: \(paths.database)\nbindings: \(dir.file("two.d"))\nlog-level: loud\n")
        try await Self.reload(daemon, inbox)
        #expect(daemon.log.contains("configuration not reloaded"), "\(daemon.log)")
        #expect(daemon.log.contains("\(config):4:"), "\(daemon.log)")
        #expect(try await client.bindings().map(\.key) == ["c.one"])

        // Good again: the new bindings directory applies.
        try dir.write("propd.conf", "socket: \(paths.socket)\ndatabase: \(paths.database)\nbindings: \(dir.file("two.d"))\n")
        try await Self.reload(daemon, inbox)
        #expect(try await client.bindings().map(\.key) == ["c.two"])
        await client.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// systemd may send SIGHUP as soon as READY=1 arrives: it must reload,
    /// not kill propd (SIGHUP's default action).
    @Test func sighupRightAfterReadyReloads() async throws {
        for _ in 0..<3 {
            let dir = try ScratchDirectory("hup-early")
            let paths = DaemonPaths(dir)
            let inbox = try NotifyInbox(path: dir.file("notify.sock"))
            let daemon = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
            try await daemon.ready(inbox)
            daemon.signal(SIGHUP)
            do {
                try await inbox.wait(for: "RELOADING=1", timeout: .seconds(30))
            } catch {
                let ended = try? await daemon.exit(timeout: .seconds(5))
                Issue.record("an early SIGHUP did not reload; propd: \(ended.map { "\($0)" } ?? "still running")")
                return
            }
            try await inbox.wait(for: "READY=1", timeout: .seconds(30))
            daemon.signal(SIGTERM)
            #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
        }
    }

    /// SIGHUP applies every setting that can change live (limits,
    /// history-per-key, log-level) and refuses, by name, those that cannot.
    @Test func sighupAppliesLiveSettingsAndRefusesTheOthers() async throws {
        let dir = try ScratchDirectory("reload-settings")
        let paths = DaemonPaths(dir)
        try dir.write("propd.conf", "limits:\n  max-patterns-per-subscription: 2\n")
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            paths.arguments + ["--config", dir.file("propd.conf")], environment: ["NOTIFY_SOCKET": inbox.path],
            logPath: paths.log)
        try await daemon.ready(inbox)
        let before = try RawSocket(path: paths.socket)
        #expect(before.call("io.propd.Subscribe", ["patterns": ["a.*", "b.*", "c.*"]], more: true))
        #expect(try await before.receive()?["parameters"]?["maximum"] == 2)

        try dir.write(
            "propd.conf",
            """
            history-per-key: 4
            log-level: debug
            limits:
              max-patterns-per-subscription: 3
              max-message-bytes: 65536
            """)
        try await Self.reload(daemon, inbox)
        let logged = daemon.log
        #expect(logged.contains("configuration reloaded"), "\(logged)")
        for setting in ["history-per-key", "log-level", "limits.max-patterns-per-subscription"] {
            #expect(logged.contains(setting), "\(setting) not reported applied:\n\(logged)")
        }
        #expect(logged.contains("restart propd to change these settings") && logged.contains("limits.max-message-bytes"))

        // The limit is the new one.
        let after = try RawSocket(path: paths.socket)
        #expect(after.call("io.propd.Subscribe", ["patterns": ["a.*", "b.*", "c.*"]], more: true))
        let synced = try #require(try await after.receive())
        #expect(synced["error"] == nil, "\(synced)")
        // Debug lines are written now (a connection accepted is one).
        #expect(daemon.log.contains("varlink connection accepted"))
        // History keeps about 4 values per key, not 100.
        let writer = try RawSocket(path: paths.socket)
        for i in 0..<40 {
            #expect(writer.call("io.propd.Set", ["values": ["h.k": .integer(Int64(i))]]))
            _ = try await writer.receive()
        }
        #expect(writer.call("io.propd.History", ["key": "h.k", "limit": 1000]))
        guard case .array(let entries)? = try await writer.receive()?["parameters"]?["entries"] else {
            Issue.record("no history")
            return
        }
        #expect(entries.count < 20, "\(entries.count) entries kept")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
