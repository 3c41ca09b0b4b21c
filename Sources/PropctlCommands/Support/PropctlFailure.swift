import PropdClient

/// Why a propctl command failed, with the exit code of the contract and the
/// lines to print on stderr.
///
/// Exit codes: 0 success, 1 an error from the daemon, 2 a usage error (the
/// command line, or a file it names, is unusable: nothing was sent), 3 the
/// daemon cannot be reached, 4 a derived key read is in an evaluation error
/// (its kept value was printed).
struct PropctlFailure: Error, CustomStringConvertible {
    enum Kind: Sendable {
        case daemon, usage, unreachable, derivedKeyInError

        var exitCode: Int32 {
            switch self {
            case .daemon: return 1
            case .usage: return 2
            case .unreachable: return 3
            case .derivedKeyInError: return 4
            }
        }
    }

    var kind: Kind
    /// What went wrong, in plain words; further lines (excerpts, hints) follow.
    var lines: [String]

    var description: String { lines.joined(separator: "\n") }

    static func usage(_ message: String, _ more: [String] = []) -> PropctlFailure {
        PropctlFailure(kind: .usage, lines: ["error: " + message] + more)
    }

    /// A daemon error: its name and parameters in plain words, or the
    /// unreachable-daemon message with a hint.
    init(_ error: PropdClientError, socket: SocketChoice, more: [String] = []) {
        if error.isUnreachable {
            kind = .unreachable
            lines = ["error: \(error.description)"] + socket.unreachableHint(for: error)
        } else {
            kind = .daemon
            lines = ["error: \(error.name): \(TerminalText.escaped(error.description))"] + more
        }
    }

    init(kind: Kind, lines: [String]) {
        self.kind = kind
        self.lines = lines
    }
}
