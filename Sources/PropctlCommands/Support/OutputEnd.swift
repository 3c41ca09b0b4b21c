import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The ways an endless command (`watch`) ends: Ctrl-C, SIGTERM, or its
/// reader going away. Each ends the process at once with status 0; output is
/// written unbuffered line by line, so nothing printed is lost.
enum OutputEnd {
    static func exitWhenInterruptedOrOutputCloses() {
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        signal(SIGHUP) { _ in _exit(0) }
        var status = stat()
        guard fstat(STDOUT_FILENO, &status) == 0 else { return }
        let type = status.st_mode & S_IFMT
        guard type == S_IFIFO || type == S_IFSOCK else { return }
        // A pipe whose reader exited (`| head -3`) reports POLLERR to the
        // writer at once; without this, watch would only notice at its next
        // write, which may never come when the keys stay still. The wait
        // blocks a Dispatch thread (not one of the cooperative pool's).
        DispatchQueue.global().async {
            var pfd = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
            while true {
                let n = poll(&pfd, 1, -1)
                if n > 0, pfd.revents & Int16(POLLERR | POLLHUP) != 0 { _exit(0) }
                if n < 0, errno != EINTR { return }
            }
        }
    }
}
