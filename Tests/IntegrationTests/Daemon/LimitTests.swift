import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The config file's limits reach the running daemon, and a request beyond
/// one is `LimitExceeded(limit, maximum)` naming the config key
/// (docs/service.md: "where `limit` is the key's name above").
@Suite struct LimitTests {
    @Test func configuredLimitsAreEnforcedAndNamed() async throws {
        let dir = try ScratchDirectory("limits")
        let paths = DaemonPaths(dir)
        try dir.write(
            "propd.conf",
            """
            limits:
              max-message-bytes: 4096
              max-patterns-per-subscription: 2
            """)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            paths.arguments + ["--config", dir.file("propd.conf")], environment: ["NOTIFY_SOCKET": inbox.path],
            logPath: paths.log)
        try await daemon.ready(inbox)

        let raw = try RawSocket(path: paths.socket)
        #expect(raw.call("io.propd.Set", ["values": ["big.value": .string(String(repeating: "x", count: 5000))]]))
        let tooLarge = try #require(try await raw.receive())
        #expect(tooLarge["error"] == "io.propd.LimitExceeded")
        #expect(tooLarge["parameters"]?["limit"] == "max-message-bytes", "\(tooLarge)")
        #expect(tooLarge["parameters"]?["maximum"] == 4096)

        let subscriber = try RawSocket(path: paths.socket)
        #expect(subscriber.call("io.propd.Subscribe", ["patterns": ["a.*", "b.*", "c.*"]], more: true))
        let tooManyPatterns = try #require(try await subscriber.receive())
        #expect(tooManyPatterns["error"] == "io.propd.LimitExceeded")
        #expect(tooManyPatterns["parameters"]?["maximum"] == 2)
        #expect(tooManyPatterns["parameters"]?["limit"] == "max-patterns-per-subscription", "\(tooManyPatterns)")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// A connection streams one Subscribe at a time (Varlink answers its
    /// calls in order): a second Subscribe waits behind the first, without
    /// disturbing it, and runs once the first ends. The retired
    /// `max-subscriptions-per-connection` is accepted, with a warning.
    @Test func aSecondSubscribeRunsWhenTheFirstStreamEndsAndTheRetiredLimitIsIgnored() async throws {
        let dir = try ScratchDirectory("one-stream")
        let paths = DaemonPaths(dir)
        try dir.write("propd.conf", "limits:\n  max-subscriptions-per-connection: 1\n")
        let arguments = paths.arguments + ["--config", dir.file("propd.conf")]
        let warning = "limits.max-subscriptions-per-connection has no effect"
        let check = try Command.run(PropdLaunch.executable, ["--check"] + arguments, environment: PropdLaunch.environment([:]))
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("propd: warning: \(dir.file("propd.conf")): \(warning)"), "\(check.output)")

        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        #expect(daemon.log.contains("setting ignored: \(dir.file("propd.conf")): \(warning)"), "\(daemon.log)")

        let writer = try RawSocket(path: paths.socket)
        #expect(writer.call("io.propd.Set", ["values": ["other.key": 7]]))
        #expect(try await writer.receive()?["error"] == nil)

        let both = try RawSocket(path: paths.socket)
        #expect(both.call("io.propd.Subscribe", ["patterns": ["big"], "initial": false], more: true))
        #expect(try await both.receive()?["parameters"]?["event"]?["kind"] == "synced")
        #expect(both.call("io.propd.Subscribe", ["patterns": ["other.*"]], more: true))
        // The first stream goes on: its live events arrive, not the second's reply.
        #expect(writer.call("io.propd.Set", ["values": ["big": "first"]]))
        #expect(try await writer.receive()?["error"] == nil)
        let live = try #require(try await both.receive())
        #expect(live["parameters"]?["event"]?["key"] == "big", "\(live)")

        // Ending the first stream (this connection reads nothing while
        // 48 MiB pile up for it: SlowConsumer) lets the second run.
        let value = JSONValue.string(String(repeating: "v", count: 1 << 20))
        for _ in 0..<48 {
            #expect(writer.call("io.propd.Set", ["values": ["big": value]]))
            #expect(try await writer.receive()?["error"] == nil)
        }
        var firstEnded = false
        while let reply = try await both.receive() {
            if reply["error"] != nil {
                #expect(reply["error"] == "io.propd.SlowConsumer", "\(reply)")
                firstEnded = true
                break
            }
            #expect(reply["parameters"]?["event"]?["key"] == "big")
        }
        #expect(firstEnded)
        let initial = try #require(try await both.receive())
        #expect(initial["parameters"]?["event"]?["kind"] == "initial", "\(initial)")
        #expect(initial["parameters"]?["event"]?["key"] == "other.key")
        #expect(initial["parameters"]?["event"]?["value"] == 7)
        #expect(try await both.receive()?["parameters"]?["event"]?["kind"] == "synced")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
