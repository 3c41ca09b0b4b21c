import PropdServer
import Testing

@Suite struct ConfigurationPrecedenceTests {
    let user: [String: String] = ["HOME": "/home/ada", "XDG_RUNTIME_DIR": "/run/user/1000"]
    let directory = FakeAccountDirectory()

    @Test func defaultsAloneForAUser() throws {
        let config = try DaemonConfiguration.resolve(environment: user, uid: 1000, flags: DaemonFlags(), file: nil, directory: directory)
        #expect(config.socketPath == "/run/user/1000/propd/propd.sock")
        #expect(config.databasePath == "/home/ada/.local/state/propd/propd.db")
        #expect(config.bindingsDirectory == "/home/ada/.config/propd/bindings.d")
        #expect(config.durability == .full)
        #expect(config.historyPerKey == 100)
        #expect(config.limits == .defaults)
        #expect(config.limits.maxMessageBytes == 8 * 1024 * 1024)
        #expect(config.logLevel == .info)
        #expect(config.access.isOpen)
        #expect(config.access.daemonUID == 1000)
        #expect(config.configFile == nil)
    }

    @Test func fileOverridesDefaults() throws {
        let text = """
            socket: /srv/p.sock
            database: /srv/p.db
            bindings: /srv/b.d
            durability: normal
            history-per-key: 7
            log-level: debug
            limits:
              max-connections: 10
            """
        let config = try DaemonConfiguration.resolve(
            environment: user, uid: 1000, flags: DaemonFlags(), file: ConfigurationText(path: "/c.conf", text: text), directory: directory)
        #expect(config.socketPath == "/srv/p.sock")
        #expect(config.databasePath == "/srv/p.db")
        #expect(config.bindingsDirectory == "/srv/b.d")
        #expect(config.durability == .normal)
        #expect(config.historyPerKey == 7)
        #expect(config.logLevel == .debug)
        #expect(config.limits.maxConnections == 10)
        #expect(config.limits.maxMessageBytes == ConfigurationLimits.defaults.maxMessageBytes)  // untouched
        #expect(config.configFile == "/c.conf")
    }

    @Test func flagsOverrideFileAndEnvironment() throws {
        let text = "socket: /srv/p.sock\ndatabase: /srv/p.db\nbindings: /srv/b.d\ndurability: normal\nhistory-per-key: 7\n"
        let flags = DaemonFlags(socket: "/f.sock", database: "/f.db", bindings: "/f.d", durability: .full, historyPerKey: 9)
        var environment = user
        environment["PROPD_SOCKET"] = "/env.sock"
        let config = try DaemonConfiguration.resolve(
            environment: environment, uid: 1000, flags: flags, file: ConfigurationText(path: "/c.conf", text: text), directory: directory)
        #expect(config.socketPath == "/f.sock")
        #expect(config.databasePath == "/f.db")
        #expect(config.bindingsDirectory == "/f.d")
        #expect(config.durability == .full)
        #expect(config.historyPerKey == 9)
    }

    @Test func propdSocketOutranksTheFileButNotTheFlag() throws {
        var environment = user
        environment["PROPD_SOCKET"] = "/env.sock"
        let file = ConfigurationText(path: "/c.conf", text: "socket: /file.sock\n")
        let config = try DaemonConfiguration.resolve(environment: environment, uid: 1000, flags: DaemonFlags(), file: file, directory: directory)
        #expect(config.socketPath == "/env.sock")
    }

    @Test func rootGetsSystemPaths() throws {
        let config = try DaemonConfiguration.resolve(environment: [:], uid: 0, flags: DaemonFlags(), file: nil, directory: directory)
        #expect(config.socketPath == "/run/propd/propd.sock")
        #expect(config.databasePath == "/var/lib/propd/propd.db")
        #expect(config.bindingsDirectory == "/etc/propd/bindings.d")
    }

    @Test func whichConfigFileIsRead() {
        let system = DefaultPaths.system
        let user = DefaultPaths(environment: self.user, uid: 1000)
        // --config always, and it must exist.
        let explicit = DaemonConfiguration.configFilePath(flags: DaemonFlags(config: "/x.conf"), defaults: user, fileExists: { _ in false })
        #expect(explicit?.path == "/x.conf")
        #expect(explicit?.required == true)
        // Root: /etc/propd/propd.conf when present, optional.
        let present = DaemonConfiguration.configFilePath(flags: DaemonFlags(), defaults: system, fileExists: { $0 == "/etc/propd/propd.conf" })
        #expect(present?.path == "/etc/propd/propd.conf")
        #expect(present?.required == false)
        #expect(DaemonConfiguration.configFilePath(flags: DaemonFlags(), defaults: system, fileExists: { _ in false }) == nil)
        // A user reads no file by default.
        #expect(DaemonConfiguration.configFilePath(flags: DaemonFlags(), defaults: user, fileExists: { _ in true }) == nil)
    }

    @Test func loadReadsTheGivenFileAndRefusesAMissingOne() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/propd.conf"
        try dir.write("history-per-key: 3\n", to: "propd.conf")
        let config = try DaemonConfiguration.load(environment: user, uid: 1000, flags: DaemonFlags(config: path), directory: directory)
        #expect(config.historyPerKey == 3)
        #expect(config.configFile == path)

        let missing = dir.path + "/absent.conf"
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.load(environment: user, uid: 1000, flags: DaemonFlags(config: missing), directory: directory)
        }
        #expect(error?.problem == .fileNotFound)
        #expect(error?.description == "\(missing): config file not found")
    }

    @Test func loadReportsAnUnreadableFile() throws {
        let dir = try TemporaryDirectory()
        // A directory cannot be read as a file: EISDIR.
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.load(environment: user, uid: 1000, flags: DaemonFlags(config: dir.path), directory: directory)
        }
        guard case .unreadable = error?.problem else {
            Issue.record("expected unreadable, got \(String(describing: error))")
            return
        }
        try dir.write(bytes: [0x73, 0x3A, 0x20, 0xFF, 0xFE, 0x0A], to: "latin.conf")
        let notUTF8 = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.load(environment: user, uid: 1000, flags: DaemonFlags(config: dir.path + "/latin.conf"), directory: directory)
        }
        #expect(notUTF8?.problem == .unreadable(reason: "not UTF-8 text"))
    }

    @Test func badFlagValuesAreErrors() {
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.resolve(environment: user, uid: 1000, flags: DaemonFlags(historyPerKey: 0), file: nil, directory: directory)
        }
        #expect(error?.file == nil)
        #expect(error?.description.hasPrefix("--history-per-key \"0\" is out of range") == true)
        let longSocket = "/" + String(repeating: "s", count: 120)
        let flagged = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.resolve(environment: user, uid: 1000, flags: DaemonFlags(socket: longSocket), file: nil, directory: directory)
        }
        #expect(flagged?.problem == .invalidFlag(flag: "--socket", value: longSocket, reason: "is 121 bytes; a Unix socket path holds at most 107"))
        var environment = user
        environment["PROPD_SOCKET"] = longSocket
        let fromEnvironment = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.resolve(environment: environment, uid: 1000, flags: DaemonFlags(), file: nil, directory: directory)
        }
        #expect(fromEnvironment?.description.hasPrefix("PROPD_SOCKET ") == true)
        let fromDefaults = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.resolve(
                environment: ["XDG_RUNTIME_DIR": "/run/" + String(repeating: "r", count: 100)], uid: 1000, flags: DaemonFlags(), file: nil,
                directory: directory)
        }
        guard case .invalidFlag(flag: "the default socket path", _, _) = fromDefaults?.problem else {
            Issue.record("got \(String(describing: fromDefaults))")
            return
        }
        #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.resolve(environment: user, uid: 1000, flags: DaemonFlags(database: ""), file: nil, directory: directory)
        }
    }

    @Test func reloadNamesSettingsThatNeedARestart() throws {
        let old = try DaemonConfiguration.resolve(environment: user, uid: 1000, flags: DaemonFlags(), file: nil, directory: directory)
        var new = old
        new.historyPerKey = 5
        new.limits.maxConnections = 3
        #expect(old.settingsRequiringRestart(toBecome: new).isEmpty)
        new.socketPath = "/other.sock"
        new.durability = .normal
        #expect(old.settingsRequiringRestart(toBecome: new) == ["socket", "durability"])
    }

    @Test func reloadAppliesWhatItCanAndKeepsTheRest() throws {
        let old = try DaemonConfiguration.resolve(environment: user, uid: 1000, flags: DaemonFlags(), file: nil, directory: directory)
        let text = """
            socket: /elsewhere.sock
            durability: normal
            history-per-key: 12
            log-level: debug
            limits:
              max-message-bytes: 65536
              max-connections: 5
            access:
              - users: [alice]
                read: ["ui.**"]
            """
        let new = try DaemonConfiguration.resolve(
            environment: user, uid: 1000, flags: DaemonFlags(), file: ConfigurationText(path: "/c.conf", text: text), directory: directory)
        let (next, kept) = old.reloaded(to: new)
        #expect(kept == ["socket", "durability", "limits.max-message-bytes"])
        #expect(next.socketPath == old.socketPath)
        #expect(next.durability == .full)
        #expect(next.limits.maxMessageBytes == old.limits.maxMessageBytes)
        #expect(next.historyPerKey == 12)
        #expect(next.logLevel == .debug)
        #expect(next.limits.maxConnections == 5)
        #expect(next.access.rules.count == 1)
        #expect(next.configFile == "/c.conf")
    }
}
