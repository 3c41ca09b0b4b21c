import Foundation
import PropdTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended.
struct Termination: Sendable, Equatable, CustomStringConvertible {
    var status: Int32
    var bySignal: Bool

    static func exited(_ status: Int32) -> Termination { Termination(status: status, bySignal: false) }

    var description: String { bySignal ? "killed by signal \(status)" : "exit \(status)" }
}

/// A child process of a test: exact arguments and environment (nothing
/// inherited but what is given), stderr kept in a file, its exit awaited
/// with a timeout. Killed with SIGKILL if the test ends while it runs.
final class Spawned {
    let process: Process
    let logPath: String
    private let exits = Mailbox<Termination>()
    private var termination: Termination?

    struct ExitTimeout: Error, CustomStringConvertible {
        var log: String
        var description: String { "the process did not exit in time; its stderr:\n\(log)" }
    }

    init(
        executable: String, arguments: [String], environment: [String: String], logPath: String,
        standardInput: Pipe? = nil, standardOutput: Pipe? = nil, standardError: Pipe? = nil
    ) throws {
        self.logPath = logPath
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment
        if let standardError {
            p.standardError = standardError
        } else {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        }
        p.standardOutput = standardOutput ?? FileHandle.nullDevice
        p.standardInput = standardInput ?? FileHandle.nullDevice
        let exits = self.exits
        p.terminationHandler = { process in
            exits.push(Termination(status: process.terminationStatus, bySignal: process.terminationReason == .uncaughtSignal))
        }
        try ProcessLaunch.run(p)
        process = p
    }

    var pid: Int32 { process.processIdentifier }

    /// What the process wrote to stderr so far (when it goes to the log file).
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the process to end.
    func exit(timeout: Duration = .seconds(60)) async throws -> Termination {
        if let termination { return termination }
        guard let ended = await exits.next(timeout: timeout) else { throw ExitTimeout(log: log) }
        termination = ended
        return ended
    }

    deinit {
        if termination == nil, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            ChildExit.wait(process)
        }
    }
}

/// A temporary directory for one test, removed at the end.
final class ScratchDirectory {
    let path: String

    /// `mode` 0755 lets a propd or client running as another user reach
    /// sockets inside it.
    init(_ label: String, mode: mode_t = 0o755) throws {
        path = FileManager.default.temporaryDirectory.path + "/propd-e2e-\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, mode)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Creates a subdirectory, owned by `owner` when given.
    @discardableResult
    func directory(_ name: String, owner: TestUser? = nil, mode: mode_t = 0o700) throws -> String {
        let sub = file(name)
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        chmod(sub, mode)
        if let owner { chown(sub, owner.uid, owner.gid) }
        return sub
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: file(name), atomically: false, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
