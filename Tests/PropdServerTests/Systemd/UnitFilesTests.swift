#if canImport(Glibc)
import PropdTestSupport
import Glibc
#endif
import Foundation
import Testing

/// The units in `systemd/` are checked with systemd's own tools. The tests are
/// skipped (with the reason in the test output) only where those tools are
/// missing; `scripts/install-deps` installs systemd, so CI runs them.
@Suite struct UnitFilesTests {
    static let analyze = findExecutable("systemd-analyze")
    static let sysusers = findExecutable("systemd-sysusers")
    static let tmpfiles = findExecutable("systemd-tmpfiles")
    static let isRoot = getuid() == 0

    /// Without `--man=no`: the `man:` pages of Documentation= must exist,
    /// and do once installed (here: the generated pages on MANPATH).
    @Test(.enabled(if: analyze != nil && ManPageTests.man != nil, "systemd-analyze or man is not installed"))
    func verifyIsClean() throws {
        let units = try UnitCopy()
        let pages = try GeneratedManPages.make()
        let result = try run(
            Self.analyze!, ["verify", units.service, units.socket], in: units.directory.path, manPath: pages.directory)
        #expect(result.status == 0, "systemd-analyze verify failed:\n\(result.output)")
        #expect(result.output.isEmpty, "systemd-analyze verify complained:\n\(result.output)")
    }

    /// The user units of `scripts/install --user`, verified by a user manager
    /// (`systemd-analyze --user`), with their man pages.
    @Test(.enabled(if: analyze != nil && ManPageTests.man != nil, "systemd-analyze or man is not installed"))
    func userUnitsVerifyClean() throws {
        let directory = try TemporaryDirectory()
        let existing = FileManager.default.isExecutableFile(atPath: "/bin/true") ? "/bin/true" : "/usr/bin/true"
        let service = try String(contentsOfFile: repositoryRoot + "/systemd/user/propd.service", encoding: .utf8)
            .replacingOccurrences(of: "ExecStart=%h/.local/bin/propd", with: "ExecStart=" + existing)
            .replacingOccurrences(of: "ExecReload=%h/.local/bin/propctl", with: "ExecReload=" + existing)
        #expect(service.contains("ExecStart=\(existing)\n") && service.contains("ExecReload=\(existing) --socket"))
        try directory.write(service, to: "propd.service")
        try directory.write(
            try String(contentsOfFile: repositoryRoot + "/systemd/user/propd.socket", encoding: .utf8), to: "propd.socket")
        let runtime = directory.path + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let pages = try GeneratedManPages.make()
        let result = try run(
            Self.analyze!, ["--user", "verify", directory.path + "/propd.service", directory.path + "/propd.socket"],
            in: directory.path, manPath: pages.directory, runtimeDirectory: runtime)
        #expect(result.status == 0, "systemd-analyze --user verify failed:\n\(result.output)")
        #expect(result.output.isEmpty, "systemd-analyze --user verify complained:\n\(result.output)")
    }

    @Test(.enabled(if: analyze != nil, "systemd-analyze is not installed"))
    func exposureIsAtMostOne() throws {
        let units = try UnitCopy()
        let result = try run(Self.analyze!, ["security", "--offline=true", "--no-pager", units.service], in: units.directory.path)
        #expect(result.status == 0, "systemd-analyze security failed:\n\(result.output)")
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level for propd.service") })
        let figure = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        print("systemd-analyze security --offline=true: exposure \(figure)")
        #expect(figure <= 1.0, "exposure \(figure) > 1.0:\n\(result.output)")
    }

    @Test(.enabled(if: sysusers != nil && tmpfiles != nil && isRoot, "needs systemd-sysusers, systemd-tmpfiles and root"))
    func sysusersAndTmpfilesFragmentsApply() throws {
        let root = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root.path + "/etc", withIntermediateDirectories: true)
        let users = try run(Self.sysusers!, ["--root=\(root.path)", repositoryRoot + "/systemd/propd.sysusers.conf"], in: root.path)
        #expect(users.status == 0, "\(users.output)")
        let passwd = try String(contentsOfFile: root.path + "/etc/passwd", encoding: .utf8)
        let entry = try #require(passwd.split(separator: "\n").first { $0.hasPrefix("propd:") })
        let uid = try #require(UInt32(entry.split(separator: ":")[2]))
        let files = try run(Self.tmpfiles!, ["--root=\(root.path)", "--create", repositoryRoot + "/systemd/propd.tmpfiles.conf"], in: root.path)
        #expect(files.status == 0, "\(files.output)")
        var state = stat()
        #expect(stat(root.path + "/var/lib/propd", &state) == 0)
        #expect(state.st_uid == uid)
        #expect(state.st_mode & 0o7777 == 0o750)
        #expect(FileManager.default.fileExists(atPath: root.path + "/etc/propd/bindings.d"))
    }

    @Test func socketIsGroupPropdMode0660() throws {
        let socket = try String(contentsOfFile: repositoryRoot + "/systemd/propd.socket", encoding: .utf8)
        let lines = Set(socket.split(separator: "\n").map(String.init))
        #expect(lines.contains("SocketMode=0660"))
        #expect(lines.contains("SocketGroup=propd"))
        #expect(lines.contains("ListenStream=/run/propd/propd.sock"))
    }
}

/// `propd.service` and `propd.socket` in a temp dir, with ExecStart pointing at
/// a binary that exists here (verify checks that it does).
private struct UnitCopy {
    let directory: TemporaryDirectory
    var service: String { directory.path + "/propd.service" }
    var socket: String { directory.path + "/propd.socket" }

    init() throws {
        directory = try TemporaryDirectory()
        let source = repositoryRoot + "/systemd"
        var service = try String(contentsOfFile: source + "/propd.service", encoding: .utf8)
        let existing = FileManager.default.isExecutableFile(atPath: "/bin/true") ? "/bin/true" : "/usr/bin/true"
        service = service.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            for directive in ["ExecStart=", "ExecReload="] where line.hasPrefix(directive) {
                let arguments = line.dropFirst(directive.count).split(separator: " ").dropFirst()
                return ([directive + existing] + arguments.map(String.init)).joined(separator: " ")
            }
            return String(line)
        }.joined(separator: "\n")
        try directory.write(service, to: "propd.service")
        try directory.write(try String(contentsOfFile: source + "/propd.socket", encoding: .utf8), to: "propd.socket")
    }
}

private func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
    return directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

private func run(
    _ executable: String, _ arguments: [String], in directory: String, manPath: String? = nil,
    runtimeDirectory: String? = nil
) throws -> (status: Int32, output: String) {
    var environment = ProcessInfo.processInfo.environment
    if let manPath { environment["MANPATH"] = manPath }
    if let runtimeDirectory { environment["XDG_RUNTIME_DIR"] = runtimeDirectory }
    environment["SYSTEMD_LOG_COLOR"] = "0"
    environment["SYSTEMD_PAGER"] = ""
    return try Command.run(executable, arguments, environment: environment, directory: directory)
}
