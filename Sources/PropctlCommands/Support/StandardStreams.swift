#if canImport(Glibc)
import Glibc
#endif

/// Writing to stdout and stderr with plain `write(2)`: no buffering surprises
/// for `watch`, and a closed pipe (`propctl watch | head -3`) ends the process
/// quietly with status 0 instead of a SIGPIPE death.
enum StandardStreams {
    /// Ignores SIGPIPE so that writing to a closed pipe is an EPIPE error we
    /// handle, rather than a signal that kills the process.
    static func ignoreBrokenPipeSignal() {
        signal(SIGPIPE, SIG_IGN)
    }

    static func out(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    static func err(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    // The reader is gone (EPIPE) or the stream is unusable:
                    // nobody can read more output, so stop here, successfully.
                    _exit(fd == STDOUT_FILENO ? 0 : 1)
                }
            }
        }
    }

    /// Whether standard output is a terminal.
    static var outputIsTerminal: Bool { isTerminal(STDOUT_FILENO) }

    /// Whether `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
