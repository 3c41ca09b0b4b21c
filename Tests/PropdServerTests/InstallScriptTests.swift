import PropdTestSupport
import Foundation
import PropdServer
import Testing

/// `scripts/install` staged into a DESTDIR with stand-in programs (no build):
/// the layout, the PREFIX in the unit, and that a second run keeps the admin's config.
@Suite struct InstallScriptTests {
    @Test func stagesEverythingAndIsIdempotent() throws {
        let dir = try TemporaryDirectory()
        let bin = dir.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for program in ["propd", "propctl"] {
            try dir.write("#!/bin/sh\n", to: "bin/\(program)")
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/" + program)
        }
        let root = dir.path + "/root"
        let first = try install(destdir: root, prefix: "/opt/propd", bin: bin)
        #expect(first.status == 0, "\(first.output)")

        for path in [
            "/opt/propd/bin/propd", "/opt/propd/bin/propctl", "/etc/systemd/system/propd.service",
            "/etc/systemd/system/propd.socket", "/etc/sysusers.d/propd.conf", "/etc/tmpfiles.d/propd.conf",
            "/etc/propd/propd.conf", "/opt/propd/share/doc/propd/examples/propd.conf",
            "/opt/propd/share/doc/propd/examples/bindings.d/example.prop",
        ] {
            #expect(FileManager.default.fileExists(atPath: root + path), "missing \(path)")
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: root + "/etc/propd/bindings.d", isDirectory: &isDirectory) && isDirectory.boolValue)
        let unit = try String(contentsOfFile: root + "/etc/systemd/system/propd.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/opt/propd/bin/propd\n"))

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
        return try Command.run("/bin/bash", [repositoryRoot + "/scripts/install"], environment: environment)
    }
}
