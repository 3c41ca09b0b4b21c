import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// watch: live output, both modes, options, resuming, and how it ends.
@Suite struct WatchTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    func set(_ arguments: String...) throws {
        let result = try Propctl.run(["set"] + arguments, daemon: daemon)
        #expect(result.status == 0, "\(result)")
    }

    @Test func jsonLinesThenLiveChangesThenCtrlC() throws {
        try set("a.x", "1", "a.y", "Ada", "b.z", "3")
        let watch = try StreamingProcess(["--json", "watch", "a.**"], socket: daemon.socketPath)
        try watch.waitForLines("synced") { $0.contains { $0.contains(#""kind":"synced""#) } }
        try set("a.x", "2")
        try set("b.z", "4")
        try set("a.y", "Grace")
        let lines = try watch.waitForLines("two live events") { $0.count == 5 }
        let events = try lines.map { try JSONValue(parsing: $0) }
        #expect(events == [
            ["key": "a.x", "kind": "initial", "revision": 1, "value": 1],
            ["key": "a.y", "kind": "initial", "revision": 1, "value": "Ada"],
            ["key": "", "kind": "synced", "revision": 1],
            ["key": "a.x", "kind": "set", "revision": 2, "value": 2],
            ["key": "a.y", "kind": "set", "revision": 4, "value": "Grace"],
        ])
        // 0, not 128 + SIGINT: propctl exits on its own, not by the signal.
        #expect(try watch.stop(with: SIGINT) == 0)
    }

    @Test func humanLinesShowRevisionKeyKindValue() throws {
        try set("room.temp", "21.5")
        let watch = try StreamingProcess(["watch", "room.*"], socket: daemon.socketPath)
        try watch.waitForLines("initial") { $0.count == 1 }
        try Propctl.run(["del", "room.temp"], daemon: daemon).expectSuccess()
        let lines = try watch.waitForLines("delete") { $0.count == 2 }
        #expect(lines == [
            "      1  room.temp     initial  21.5",
            "      2  room.temp     delete",
        ])
        #expect(try watch.stop(with: SIGTERM) == 0)
    }

    @Test func noInitialReplayAndSince() throws {
        try set("k", "1")
        try set("k", "2")
        try set("k", "3")
        let replay = try Propctl.run(["--json", "watch", "k", "--replay", "2"], daemon: daemon, timeout: .seconds(30),
            until: { $0.contains { $0.contains("synced") } })
        #expect(replay == [
            ["key": "k", "kind": "replay", "revision": 2, "value": 2],
            ["key": "k", "kind": "replay", "revision": 3, "value": 3],
            ["key": "", "kind": "synced", "revision": 3],
        ])
        let since = try Propctl.run(["--json", "watch", "k", "--since", "1"], daemon: daemon, timeout: .seconds(30),
            until: { $0.contains { $0.contains("synced") } })
        #expect(since == [
            ["key": "k", "kind": "set", "revision": 2, "value": 2],
            ["key": "k", "kind": "set", "revision": 3, "value": 3],
            ["key": "", "kind": "synced", "revision": 3],
        ])
        let none = try Propctl.run(["--json", "watch", "k", "--no-initial"], daemon: daemon, timeout: .seconds(30),
            until: { $0.contains { $0.contains("synced") } })
        #expect(none == [["key": "", "kind": "synced", "revision": 3]])
    }

    @Test func endsWhenThePipeCloses() throws {
        // Exactly three keys: after `head -3` exits no further event will
        // come, so watch must notice the closed pipe itself.
        try set("a.one", "1", "a.two", "2", "a.three", "3")
        let result = try Propctl.runProcess(
            "/bin/sh", ["-c", #""$0" watch 'a.**' | head -3"#, Propctl.executable],
            environment: ["PROPD_SOCKET": daemon.socketPath, "PATH": "/usr/bin:/bin"], timeout: .seconds(30))
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3, "\(result)")
        #expect(lines.first?.contains("a.one") == true, "\(result)")

        // With more events than head reads: the next write meets EPIPE.
        try set("b.1", "1", "b.2", "2", "b.3", "3", "b.4", "4", "b.5", "5")
        let status = try Propctl.runProcess(
            "/bin/bash", ["-c", #"set -o pipefail; "$0" --json watch 'b.**' | head -3 >/dev/null"#, Propctl.executable],
            environment: ["PROPD_SOCKET": daemon.socketPath, "PATH": "/usr/bin:/bin"], timeout: .seconds(30))
        #expect(status.status == 0, "propctl itself exits 0 on a closed pipe: \(status)")
    }

    @Test func resumesAfterADaemonRestartWithoutGapsOrRepeats() throws {
        try set("r.x", "1")
        let watch = try StreamingProcess(["--json", "watch", "r.*"], socket: daemon.socketPath)
        try watch.waitForLines("synced") { $0.count == 2 }
        try set("r.x", "2")
        try watch.waitForLines("live 2") { $0.count == 3 }
        try daemon.restart()
        try set("r.x", "3")
        try set("r.y", "4")
        let lines = try watch.waitForLines("after restart") { $0.contains { $0.contains(#""r.y""#) } }
        let changes = try lines.map { try JSONValue(parsing: $0) }.filter { $0["kind"] == "set" }
        #expect(changes.map { $0["value"] } == [2, 3, 4], "\(lines)")
        #expect(try watch.stop() == 0)
    }
}

extension PropctlResult {
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "\(self)", sourceLocation: sourceLocation)
    }
}

extension Propctl {
    /// Runs a watch until its output satisfies `until`, then interrupts it;
    /// returns the JSON lines.
    static func run(
        _ arguments: [String], daemon: PropdProcess, timeout: Duration, until: @escaping ([String]) -> Bool
    ) throws -> [JSONValue] {
        let watch = try StreamingProcess(arguments, socket: daemon.socketPath)
        let lines = try watch.waitForLines("\(arguments)", timeout: timeout, until: { until($0) })
        #expect(try watch.stop() == 0)
        return try lines.map { try JSONValue(parsing: $0) }
    }
}
