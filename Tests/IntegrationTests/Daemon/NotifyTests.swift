import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of `Type=notify`, seen from a notify socket in the test.
@Suite struct NotifyTests {
    @Test func readyOnlyOnceServingThenWatchdogPingsThenStopping() async throws {
        let dir = try ScratchDirectory("notify")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path, "WATCHDOG_USEC": "200000"],
            logPath: paths.log)
        let untilReady = try await daemon.ready(inbox)

        // Connected right after READY=1: the socket already serves.
        let raw = try RawSocket(path: paths.socket)
        #expect(raw.call("org.varlink.service.GetInfo"))
        let info = try #require(try await raw.receive())
        #expect(info["parameters"]?["product"] == "propd")

        // READY=1 is the first message, and it carries the figures.
        #expect(untilReady.count == 1)
        let ready = try #require(untilReady.last)
        #expect(ready.contains("STATUS=serving \(paths.socket): 0 keys, 0 bindings, "))

        // WATCHDOG_USEC=200000: a ping about every 100 ms; two of them.
        try await inbox.wait(for: "WATCHDOG=1", timeout: .seconds(30))
        try await inbox.wait(for: "WATCHDOG=1", timeout: .seconds(30))

        daemon.signal(SIGTERM)
        let stopping = try await inbox.wait(for: "STOPPING=1", timeout: .seconds(30))
        #expect(try #require(stopping.last).contains("STATUS=stopping"))
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
        // Logs carry syslog priority prefixes.
        let lines = daemon.log.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.first == "<" && $0.dropFirst(2).first == ">" }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<5>") && $0.contains("serving") })
    }

    @Test func statusCountsWhatTheDaemonHolds() async throws {
        let dir = try ScratchDirectory("status")
        let paths = DaemonPaths(dir)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(paths.arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        let client = try await PropdClient.connect(to: paths.socket)
        try await client.set(["s.a": 1, "s.b": 2])
        try await client.bind("s.c", "s.a.map { v in v + 1 }")
        await client.close()
        // A reload re-announces readiness with fresh figures.
        daemon.signal(SIGHUP)
        try await inbox.wait(for: "RELOADING=1", timeout: .seconds(30))
        let ready = try #require(try await inbox.wait(for: "READY=1", timeout: .seconds(30)).last)
        #expect(ready.contains("3 keys, 1 binding, "), "\(ready)")
        #expect(ready.contains("revision 2"), "\(ready)")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
