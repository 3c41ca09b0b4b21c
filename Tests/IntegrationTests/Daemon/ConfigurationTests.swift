import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Config file, PROPD_SOCKET and flags on the real binary: which wins, and
/// a bad file stops propd before it creates anything.
@Suite struct ConfigurationTests {
    /// The config sets socket and database; `--database` overrides the file's
    /// database, PROPD_SOCKET overrides its socket, `--socket` overrides both.
    @Test func flagsOverrideTheEnvironmentWhichOverridesTheFile() async throws {
        let dir = try ScratchDirectory("precedence")
        let config = dir.file("propd.conf")
        try dir.write(
            "propd.conf",
            """
            # settings for the precedence test
            socket: \(dir.file("file/propd.sock"))
            database: \(dir.file("file-db/propd.db"))
            bindings: \(dir.file("bindings.d"))
            durability: normal
            history-per-key: 3
            """)
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))

        // 1. The file alone.
        var daemon = try PropdLaunch.start(
            ["--config", config], environment: ["NOTIFY_SOCKET": inbox.path], logPath: dir.file("1.log"))
        try await daemon.ready(inbox)
        #expect(isSocket(dir.file("file/propd.sock")))
        #expect(exists(dir.file("file-db/propd.db")))
        let client = try await PropdClient.connect(to: dir.file("file/propd.sock"))
        for i in 1...3 { try await client.set(["p.k": .integer(Int64(i))]) }
        await client.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))

        // 2. A flag overrides the file's database; PROPD_SOCKET its socket.
        daemon = try PropdLaunch.start(
            ["--config", config, "--database", dir.file("flag-db/propd.db")],
            environment: ["NOTIFY_SOCKET": inbox.path, "PROPD_SOCKET": dir.file("env.sock")], logPath: dir.file("2.log"))
        let ready = try #require(try await daemon.ready(inbox).last)
        #expect(ready.contains("serving \(dir.file("env.sock")):"), "\(ready)")
        #expect(exists(dir.file("flag-db/propd.db")))
        let second = try await PropdClient.connect(to: dir.file("env.sock"))
        // A fresh database: the file's database (with p.k) is not the one open.
        #expect(try await second.stats().keys == 0)
        await second.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))

        // 3. --socket beats PROPD_SOCKET and the file.
        daemon = try PropdLaunch.start(
            ["--config", config, "--socket", dir.file("flag.sock")],
            environment: ["NOTIFY_SOCKET": inbox.path, "PROPD_SOCKET": dir.file("env2.sock")], logPath: dir.file("3.log"))
        try await daemon.ready(inbox)
        #expect(isSocket(dir.file("flag.sock")))
        #expect(!exists(dir.file("env2.sock")))
        let third = try await PropdClient.connect(to: dir.file("flag.sock"))
        #expect(try await third.get(["p.k"]).first?.value == 3)
        await third.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    struct BadConfig: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        /// What stderr must say after `FILE:`.
        var place: String
        var says: String
        var testDescription: String { name }
    }

    static let badConfigs: [BadConfig] = [
        BadConfig(
            name: "bad durability", text: "socket: SOCK\ndatabase: DB\ndurability: fast\n", place: ":3:", says: "fast"),
        BadConfig(name: "unknown key", text: "database: DB\nsokcet: SOCK\n", place: ":2:", says: "sokcet"),
        BadConfig(
            name: "wrong type", text: "socket: SOCK\ndatabase: DB\n\nhistory-per-key: \"100\"\n", place: ":4:",
            says: "history-per-key"),
        BadConfig(name: "YAML syntax", text: "socket: SOCK\ndatabase: [DB\n", place: ":3:", says: "not valid YAML"),
        BadConfig(
            name: "unknown user", text: "socket: SOCK\ndatabase: DB\naccess:\n  - users: [no-such-user-propd-e2e]\n    read: [\"a.*\"]\n",
            place: ":4:", says: "no-such-user-propd-e2e"),
        BadConfig(name: "relative path", text: "socket: SOCK\ndatabase: rel/propd.db\n", place: ":2:", says: "rel/propd.db"),
    ]

    /// Each bad file: exit 78 (EX_CONFIG), FILE:LINE in stderr, and neither
    /// the socket nor the database (nor their directories) created.
    @Test(arguments: badConfigs)
    func aBadConfigIsRefusedBeforeAnythingIsCreated(_ bad: BadConfig) async throws {
        let dir = try ScratchDirectory("badconf")
        let config = dir.file("propd.conf")
        try dir.write(
            "propd.conf",
            bad.text.replacingOccurrences(of: "SOCK", with: dir.file("run/propd.sock"))
                .replacingOccurrences(of: "DB", with: dir.file("state/propd.db")))
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            ["--config", config, "--bindings", dir.file("bindings.d")], environment: ["NOTIFY_SOCKET": inbox.path],
            logPath: dir.file("propd.log"))
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(78))
        let log = daemon.log
        #expect(log.contains(config + bad.place), "\(log)")
        #expect(log.contains(bad.says), "\(log)")
        #expect(log.hasPrefix("<3>"), "\(log)")
        #expect(!exists(dir.file("run")))
        #expect(!exists(dir.file("state")))
    }

    @Test func aMissingConfigFileIsRefused() async throws {
        let dir = try ScratchDirectory("noconf")
        let daemon = try PropdLaunch.start(
            ["--config", dir.file("absent.conf"), "--socket", dir.file("run/p.sock"), "--database", dir.file("state/p.db")],
            environment: [:], logPath: dir.file("propd.log"))
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(78))
        #expect(daemon.log.contains(dir.file("absent.conf")), "\(daemon.log)")
        #expect(!exists(dir.file("run")) && !exists(dir.file("state")))
    }
}
