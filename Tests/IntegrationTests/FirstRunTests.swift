import Foundation
import PropdTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The README's two commands on a stock Debian: their Python part with
/// Debian's own /usr/bin/python3 first on PATH (EXTERNALLY-MANAGED: `pip
/// install` into it is refused), as root and as an ordinary user. The test
/// packages go into a virtual environment; the system Python is not touched.
@Suite struct FirstRunTests {
    static let debianPython = "/usr/bin/python3"
    static var externallyManaged: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        return versions.contains { $0.hasPrefix("python3.") && exists("/usr/lib/\($0)/EXTERNALLY-MANAGED") }
    }
    static let enabled = FileManager.default.isExecutableFile(atPath: debianPython) && externallyManaged
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.path + "/Package.swift") {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    /// PATH with Debian's python first, as on a machine without pyenv.
    static let debianPath = "/usr/bin:/bin:/usr/sbin:/sbin"

    /// Runs a program on a Dispatch thread: pip may take a minute, and a
    /// test must not hold one of the few threads of the cooperative pool
    /// that other tests' tasks need meanwhile.
    func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws
        -> (status: Int32, output: String)
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Command.run(executable, arguments, environment: environment) })
            }
        }
    }

    func systemPythonHasVarlink() throws -> Bool {
        try Command.run(Self.debianPython, ["-c", "import varlink"], environment: ["PATH": Self.debianPath]).status == 0
    }

    func check(venv: String) throws {
        let probe = try Command.run(
            venv + "/bin/python3", ["-c", "import sys, varlink, pytest; print(sys.base_prefix)"],
            environment: ["PATH": Self.debianPath])
        #expect(probe.status == 0, "\(probe.output)")
        #expect(probe.output.hasSuffix("/usr\n"), "the venv is not made from Debian's python: \(probe.output)")
    }

    @Test(.enabled(if: enabled, "needs Debian's /usr/bin/python3 with EXTERNALLY-MANAGED"))
    func testPackagesGoIntoAVirtualEnvironmentAsRoot() async throws {
        let before = try systemPythonHasVarlink()
        let dir = try ScratchDirectory("venv-root")
        let venv = dir.file("venv")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = Self.debianPath
        environment.removeValue(forKey: "PYENV_VERSION")
        environment.removeValue(forKey: "VIRTUAL_ENV")
        let result = try await run(Self.repository + "/scripts/python-venv", [venv], environment: environment)
        #expect(result.status == 0, "\(result.output)")
        try check(venv: venv)
        #expect(try systemPythonHasVarlink() == before, "the system python was changed")

        // install-deps --test: the same (into a fresh directory: the
        // repository's .build/venv may already exist, made by whichever python3
        // ran the suite), and nothing from apt is missing here (no apt-get run).
        environment["PROPD_VENV"] = dir.file("deps-venv")
        let deps = try await run(Self.repository + "/scripts/install-deps", ["--test"], environment: environment)
        #expect(deps.status == 0, "\(deps.output)")
        #expect(!deps.output.contains("apt-get"), "\(deps.output)")
        #expect(!deps.output.contains("externally-managed"), "\(deps.output)")
        try check(venv: dir.file("deps-venv"))
    }

    @Test(.enabled(if: enabled && TestUser.canSwitch, "needs Debian's python3, root, setpriv and useradd"))
    func anOrdinaryUserNeedsNoRootForThePythonPart() async throws {
        let user = try TestUser.ensure("propd-test-a")
        let dir = try ScratchDirectory("venv-user")
        let home = try dir.directory("home", owner: user, mode: 0o755)
        guard let setpriv = TestUser.setpriv else { return }
        let result = try await run(
            setpriv, user.setprivPrefix + [Self.repository + "/scripts/python-venv", home + "/venv"],
            environment: ["PATH": Self.debianPath, "HOME": home])
        #expect(result.status == 0, "\(result.output)")
        try check(venv: home + "/venv")
        // scripts/run's install step: nothing missing here, so no sudo is needed.
        let deps = try await run(
            setpriv, user.setprivPrefix + [Self.repository + "/scripts/install-deps"],
            environment: ["PATH": Self.debianPath, "HOME": home])
        #expect(deps.status == 0, "\(deps.output)")
        var status = stat()
        #expect(stat(home + "/venv/bin/python3", &status) == 0)
    }
}
