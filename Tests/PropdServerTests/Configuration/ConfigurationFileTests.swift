import Foundation
import PropdCore
import PropdServer
import Testing

@Suite struct ConfigurationFileTests {
    let directory = FakeAccountDirectory()

    @Test func accessRulesResolveNamesAndIds() throws {
        let text = """
            access:
              - users: [alice, 1500, "1600"]
                groups: [kiosk, 2500]
                read: ["ui.**"]
                write: ["ui.login.*"]
              - users: ["*"]
                read: ["room.*.temp"]
            """
        let file = try ConfigurationFile.parse(text, path: "/c.conf", directory: directory)
        #expect(file.access.count == 2)
        let first = file.access[0]
        #expect(first.subjects == [.user(1001), .user(1500), .user(1600), .group(2001), .group(2500)])
        #expect(first.read == [try KeyPattern("ui.**")])
        #expect(first.write == [try KeyPattern("ui.login.*")])
        #expect(first.origin == "/c.conf:2")
        #expect(file.access[1].subjects == [.everyone])
    }

    @Test func theSampleConfigIsValidAndDocumentsEveryKey() throws {
        let path = repositoryRoot + "/examples/propd.conf"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // The real user database: the sample names only root and group propd
        // (which scripts/install creates); give propd a stand-in id here.
        var known = FakeAccountDirectory()
        known.users["root"] = 0
        known.groups["propd"] = 999
        let file = try ConfigurationFile.parse(text, path: path, directory: known)
        #expect(file.socket == "/run/propd/propd.sock")
        #expect(file.durability == .full)
        #expect(file.historyPerKey == 100)
        #expect(file.logLevel == .info)
        #expect(file.limits.count == ConfigurationLimits.Limit.allCases.count)
        for limit in ConfigurationLimits.Limit.allCases {
            #expect(file.limits[limit] == ConfigurationLimits.defaults[limit], "sample documents the default of \(limit.rawValue)")
        }
        #expect(file.access.count == 3)
        #expect(file.ignored.isEmpty, "the sample sets nothing that has no effect: \(file.ignored)")
        for key in ["socket", "database", "bindings", "durability", "history-per-key", "log-level", "limits", "access"] {
            #expect(text.contains("\n\(key):"), "sample lacks \(key)")
        }
    }

    /// `max-subscriptions-per-connection` has no effect (a connection streams
    /// one Subscribe at a time): a file naming it still loads, the setting
    /// is reported as ignored, and its value must still be a number.
    @Test func aRetiredLimitIsAcceptedAndReportedAsIgnored() throws {
        let text = "limits:\n  max-subscriptions-per-connection: 8\n  max-connections: 12\n"
        let file = try ConfigurationFile.parse(text, path: "/c.conf", directory: directory)
        #expect(file.limits == [.maxConnections: 12])
        #expect(file.ignored.count == 1)
        #expect(file.ignored.first?.hasPrefix("limits.max-subscriptions-per-connection has no effect: ") == true)
        #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse("limits:\n  max-subscriptions-per-connection: many\n", path: "/c.conf", directory: directory)
        }
        let resolved = try DaemonConfiguration.resolve(
            environment: ["HOME": "/home/u"], uid: 1000, flags: DaemonFlags(),
            file: ConfigurationText(path: "/c.conf", text: text), directory: directory)
        #expect(resolved.ignoredSettings == ["/c.conf: " + (file.ignored.first ?? "")])
    }
}
