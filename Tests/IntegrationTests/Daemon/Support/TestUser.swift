import PropdTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real account for tests that need another uid (zero-config start as a
/// user, access rules). Created with `useradd` when missing; needs root.
struct TestUser: Sendable, Hashable {
    var name: String
    var uid: UInt32
    var gid: UInt32

    static var isRoot: Bool { getuid() == 0 }

    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let useradd = ["/usr/sbin/useradd", "/sbin/useradd"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// The system's python (a pyenv shim under /root is not readable by other users).
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether tests can switch to another user here.
    static var canSwitch: Bool { isRoot && setpriv != nil && useradd != nil }

    /// Serialises useradd within this test process (it locks /etc/passwd).
    private static let creation = Mutex(())

    struct SetupFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The account `name`, created (system account, own group, no home) if missing.
    static func ensure(_ name: String) throws -> TestUser {
        try creation.withLock { _ in
            if let user = lookup(name) { return user }
            guard let useradd else { throw SetupFailure(description: "no useradd") }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: useradd)
            p.arguments = ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try ProcessLaunch.run(p)
            let status = ChildExit.wait(p)
            // Another process may have created it meanwhile: the lookup decides.
            guard let user = lookup(name) else {
                throw SetupFailure(description: "useradd \(name) failed with status \(status)")
            }
            return user
        }
    }

    static func lookup(_ name: String) -> TestUser? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return TestUser(name: name, uid: entry.pw_uid, gid: entry.pw_gid)
    }

    /// The command prefix that runs a program as this user (with its groups).
    var setprivPrefix: [String] {
        ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups"]
    }
}

/// Starts the real `propd` binary the way a test needs it.
enum PropdLaunch {
    static var executable: String { PropdProcess.executable.path }

    /// The environment propd gets: PATH plus `extra`, nothing else inherited
    /// (no XDG_*, PROPD_SOCKET or NOTIFY_SOCKET of the machine running the tests).
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        environment.merge(extra) { $1 }
        return environment
    }

    /// Runs propd with `arguments`, as `user` when given (through setpriv,
    /// which execs: the child's pid is propd's).
    static func start(
        _ arguments: [String], environment extra: [String: String], user: TestUser? = nil, logPath: String
    ) throws -> Spawned {
        if let user {
            guard let setpriv = TestUser.setpriv else { throw TestUser.SetupFailure(description: "no setpriv") }
            return try Spawned(
                executable: setpriv, arguments: user.setprivPrefix + [executable] + arguments,
                environment: environment(extra), logPath: logPath)
        }
        return try Spawned(executable: executable, arguments: arguments, environment: environment(extra), logPath: logPath)
    }

    /// Starts propd in `dir` (with `config` as its propd.conf when given)
    /// and waits for its READY=1.
    static func ready(in dir: ScratchDirectory, config: String? = nil) async throws
        -> (daemon: Spawned, paths: DaemonPaths, inbox: NotifyInbox)
    {
        let paths = DaemonPaths(dir)
        var arguments = paths.arguments
        if let config {
            try dir.write("propd.conf", config)
            arguments += ["--config", dir.file("propd.conf")]
        }
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try start(arguments, environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
        try await daemon.ready(inbox)
        return (daemon, paths, inbox)
    }
}
