import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child started with posix_spawn and reaped by a thread of its own, for
/// programs that close every descriptor they inherit (systemd-socket-activate)
/// or replace fd 3. Foundation's Process watches each child through an
/// inherited socket; when a child closes it, Foundation blocks in `waitpid`
/// for that child and stalls every other Process of the test run until it exits.
final class DirectChild {
    let pid: Int32
    let logPath: String
    private let exits = Mailbox<Termination>()
    private var termination: Termination?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// stderr goes to `standardError`'s write end, else to the file `logPath`.
    init(executable: String, arguments: [String], environment: [String: String], logPath: String, standardError: Pipe? = nil) throws {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if let standardError {
            posix_spawn_file_actions_adddup2(&actions, standardError.fileHandleForWriting.fileDescriptor, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(result)))") }
        try? standardError?.fileHandleForWriting.close()
        pid = child
        let (exits, spawned) = (self.exits, child)
        Thread {
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) < 0 && errno == EINTR {}
            let signalled = status & 0x7f != 0
            exits.push(Termination(status: signalled ? status & 0x7f : (status >> 8) & 0xff, bySignal: signalled))
        }.start()
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) { kill(pid, number) }

    func exit(timeout: Duration = .seconds(60)) async throws -> Termination {
        if let termination { return termination }
        guard let ended = await exits.next(timeout: timeout) else { throw Failure(description: "no exit in time; stderr:\n\(log)") }
        termination = ended
        return ended
    }

    deinit {
        if termination == nil { kill(pid, SIGKILL) }
    }
}
