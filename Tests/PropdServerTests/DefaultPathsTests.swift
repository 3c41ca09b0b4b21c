import PropdServer
import Testing

@Suite struct DefaultPathsTests {
    @Test func userGetsXDGLocations() {
        let paths = DefaultPaths(
            environment: ["HOME": "/home/ada", "XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/home/ada/st",
                          "XDG_CONFIG_HOME": "/home/ada/cfg"],
            uid: 1000)
        #expect(paths.socket == "/run/user/1000/propd/propd.sock")
        #expect(paths.database == "/home/ada/st/propd/propd.db")
        #expect(paths.bindings == "/home/ada/cfg/propd/bindings.d")
        #expect(paths.config == nil)
    }

    @Test func userWithoutXDGFallsBackAsTheContractSays() {
        let paths = DefaultPaths(environment: ["HOME": "/home/ada"], uid: 1000)
        #expect(paths.socket == "/tmp/propd-1000/propd.sock")
        #expect(paths.database == "/home/ada/.local/state/propd/propd.db")
        #expect(paths.bindings == "/home/ada/.config/propd/bindings.d")
    }

    @Test func relativeXDGValuesAreIgnored() {
        let paths = DefaultPaths(environment: ["HOME": "/h", "XDG_STATE_HOME": "rel", "XDG_RUNTIME_DIR": "x"], uid: 7)
        #expect(paths.database == "/h/.local/state/propd/propd.db")
        #expect(paths.socket == "/tmp/propd-7/propd.sock")
    }

    @Test func rootGetsSystemPathsAndPROPDSOCKETWins() {
        #expect(DefaultPaths(environment: [:], uid: 0) == .system)
        let paths = DefaultPaths(environment: ["PROPD_SOCKET": "/tmp/x.sock"], uid: 0)
        #expect(paths.socket == "/tmp/x.sock")
        #expect(paths.database == "/var/lib/propd/propd.db")
    }

    @Test func systemdServiceDirectoriesGiveTheSystemPathsToAServiceUser() {
        let environment = [
            "HOME": "/var/lib/propd", "STATE_DIRECTORY": "/var/lib/propd", "RUNTIME_DIRECTORY": "/run/propd",
            "CONFIGURATION_DIRECTORY": "/etc/propd",
        ]
        #expect(DefaultPaths(environment: environment, uid: 999) == .system)
    }

    @Test func onlyTheFirstOfSeveralServiceDirectoriesAndOnlyAbsoluteOnes() {
        let paths = DefaultPaths(
            environment: ["HOME": "/h", "STATE_DIRECTORY": "/s1:/s2", "RUNTIME_DIRECTORY": "run", "CONFIGURATION_DIRECTORY": ""], uid: 5)
        #expect(paths.database == "/s1/propd.db")
        #expect(paths.socket == "/tmp/propd-5/propd.sock")
        #expect(paths.config == nil)
        #expect(paths.bindings == "/h/.config/propd/bindings.d")
    }

    @Test func propdSocketWinsOverRuntimeDirectory() {
        let paths = DefaultPaths(environment: ["RUNTIME_DIRECTORY": "/run/propd", "PROPD_SOCKET": "/x.sock"], uid: 999)
        #expect(paths.socket == "/x.sock")
    }

    @Test func aServiceUserReadsTheConfigurationDirectorysFileWhenPresent() throws {
        let defaults = DefaultPaths(environment: ["CONFIGURATION_DIRECTORY": "/etc/propd"], uid: 999)
        let chosen = DaemonConfiguration.configFilePath(flags: DaemonFlags(), defaults: defaults, fileExists: { _ in true })
        #expect(chosen?.path == "/etc/propd/propd.conf")
        #expect(chosen?.required == false)
    }
}
