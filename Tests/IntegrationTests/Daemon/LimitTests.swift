import Foundation
import PropdClient
import PropdCore
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
        // (max-subscriptions-per-connection cannot be reached over one connection: replies come
        // in call order, so a second Subscribe waits behind the first, which never ends.)
        #expect(tooManyPatterns["parameters"]?["limit"] == "max-patterns-per-subscription", "\(tooManyPatterns)")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
