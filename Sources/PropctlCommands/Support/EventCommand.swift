#if canImport(Glibc)
import Glibc
#endif
import PropdCore

/// `watch --exec CMD`: runs CMD through `/bin/sh -c` once per event, with the
/// event in its environment — `PROPD_KEY`, `PROPD_VALUE` (the value as JSON;
/// absent for a delete), `PROPD_REVISION`, `PROPD_KIND` and, for an error
/// event, `PROPD_ERROR`. One run at a time, in revision order: the next event
/// waits until CMD has exited. CMD inherits propctl's stdin, stdout and stderr.
struct EventCommand {
    var command: String

    /// Runs CMD for `event`; returns its exit status (128 + N when killed by signal N).
    func run(for event: Event) throws(PropctlFailure) -> Int32 {
        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if !text.hasPrefix("PROPD_KEY=") && !text.hasPrefix("PROPD_VALUE=") && !text.hasPrefix("PROPD_REVISION=")
                && !text.hasPrefix("PROPD_KIND=") && !text.hasPrefix("PROPD_ERROR=")
            {
                environment.append(text)
            }
            index += 1
        }
        environment.append("PROPD_KEY=" + event.key)
        environment.append("PROPD_REVISION=\(event.revision.rawValue)")
        environment.append("PROPD_KIND=" + event.kind.rawValue)
        if let value = event.value { environment.append("PROPD_VALUE=" + value.jsonString) }
        if let error = event.error { environment.append("PROPD_ERROR=" + error) }
        return try Self.spawnAndWait(["/bin/sh", "-c", command], environment: environment)
    }

    static func spawnAndWait(_ arguments: [String], environment: [String]) throws(PropctlFailure) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, &argv, &envp)
        guard spawned == 0 else {
            throw PropctlFailure.usage("cannot run /bin/sh: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw PropctlFailure.usage("lost the command's process: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
