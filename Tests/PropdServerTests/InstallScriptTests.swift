import PropdTestSupport
import Foundation
import PropdServer
import Testing

/// `scripts/install` staged into a DESTDIR with this build's programs (no
/// release build): the layout, the PREFIX in the units, the generated man
/// pages and completions, and that a second run keeps the admin's config.
@Suite struct InstallScriptTests {
    static var products: String { PropdProcess.productsDirectory.path }

    @Test func stagesEverythingAndIsIdempotent() throws {
        let dir = try TemporaryDirectory()
        let bin = Self.products
        let root = dir.path + "/root"
        let first = try install(destdir: root, prefix: "/opt/propd", bin: bin)
        #expect(first.status == 0, "\(first.output)")

        for path in [
            "/opt/propd/bin/propd", "/opt/propd/bin/propctl", "/etc/systemd/system/propd.service",
            "/etc/systemd/system/propd.socket", "/etc/sysusers.d/propd.conf", "/etc/tmpfiles.d/propd.conf",
            "/etc/propd/propd.conf", "/opt/propd/share/doc/propd/examples/propd.conf",
            "/opt/propd/share/doc/propd/examples/bindings.d/example.prop",
            "/opt/propd/share/doc/propd/bindings.md", "/opt/propd/share/man/man1/propctl.1",
            "/opt/propd/share/man/man5/propd.conf.5", "/opt/propd/share/man/man8/propd.8",
            "/opt/propd/share/bash-completion/completions/propctl", "/opt/propd/share/zsh/site-functions/_propctl",
            "/opt/propd/share/fish/vendor_completions.d/propctl.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: root + path), "missing \(path)")
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: root + "/etc/propd/bindings.d", isDirectory: &isDirectory) && isDirectory.boolValue)
        let unit = try String(contentsOfFile: root + "/etc/systemd/system/propd.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/opt/propd/bin/propd\n"))
        #expect(unit.contains("\nExecReload=/opt/propd/bin/propctl --socket /run/propd/propd.sock reload\n"))
        // The completions call back into propctl for keys.
        let bash = try String(contentsOfFile: root + "/opt/propd/share/bash-completion/completions/propctl", encoding: .utf8)
        #expect(bash.contains("---completion get -- positional@0"))

        // The installed config is the sample, all commented out: it parses, to the defaults.
        let configPath = root + "/etc/propd/propd.conf"
        let installed = try String(contentsOfFile: configPath, encoding: .utf8)
        let parsed = try ConfigurationFile.parse(installed, path: configPath)
        #expect(parsed.socket == nil && parsed.access.isEmpty && parsed.limits.isEmpty)

        // A second run keeps the admin's edits.
        try (installed + "history-per-key: 5\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        let second = try install(destdir: root, prefix: "/opt/propd", bin: bin)
        #expect(second.status == 0, "\(second.output)")
        #expect(second.output.contains("keeping existing"))
        #expect(try ConfigurationFile.parse(String(contentsOfFile: configPath, encoding: .utf8), path: configPath).historyPerKey == 5)
    }

    @Test func userInstallNeedsNoRoot() throws {
        let dir = try TemporaryDirectory()
        let home = dir.path + "/home"
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment.removeValue(forKey: "XDG_CONFIG_HOME")
        environment.removeValue(forKey: "PREFIX")
        environment.removeValue(forKey: "UNITDIR")
        environment["PROPD_BIN_DIR"] = Self.products
        environment["GENERATE_MANUAL"] = Self.products + "/generate-manual"
        let result = try Command.run("/bin/bash", [repositoryRoot + "/scripts/install", "--user"], environment: environment)
        #expect(result.status == 0, "\(result.output)")
        for path in [
            "/.local/bin/propd", "/.local/bin/propctl", "/.config/systemd/user/propd.service",
            "/.config/systemd/user/propd.socket", "/.local/share/man/man8/propd.8",
            "/.local/share/bash-completion/completions/propctl", "/.config/propd/bindings.d",
        ] {
            #expect(FileManager.default.fileExists(atPath: home + path), "missing \(path)")
        }
        // Nothing system-wide: no sysusers fragment, no /etc config in the staging sense.
        #expect(!result.output.contains("/etc/"), "\(result.output)")
        let unit = try String(contentsOfFile: home + "/.config/systemd/user/propd.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=\(home)/.local/bin/propd\n"), "\(unit)")
        #expect(unit.contains("\nExecReload=\(home)/.local/bin/propctl --socket %t/propd/propd.sock reload\n"), "\(unit)")
    }

    @Test func refusesMissingPrograms() throws {
        let dir = try TemporaryDirectory()
        let result = try install(destdir: dir.path + "/root", prefix: "/usr/local", bin: dir.path)
        #expect(result.status != 0)
        #expect(result.output.contains("propd is missing"))
    }

    private func install(destdir: String, prefix: String, bin: String) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["DESTDIR"] = destdir
        environment["PREFIX"] = prefix
        environment["PROPD_BIN_DIR"] = bin
        environment["GENERATE_MANUAL"] = Self.products + "/generate-manual"
        environment.removeValue(forKey: "UNITDIR")
        return try Command.run("/bin/bash", [repositoryRoot + "/scripts/install"], environment: environment)
    }
}
