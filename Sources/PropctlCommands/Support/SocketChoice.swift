#if canImport(Glibc)
import Glibc
#endif
import PropdClient

/// The socket propctl talks to and where that choice came from, so an
/// unreachable daemon can be explained.
struct SocketChoice: Sendable {
    enum Origin: Sendable {
        case flag, environment, userDefault, systemDefault
    }

    var path: String
    var origin: Origin

    /// `--socket`, else `PROPD_SOCKET`, else propd's default for this user.
    init(flag: String?) {
        if let flag, !flag.isEmpty {
            path = flag
            origin = .flag
            return
        }
        var environment: [String: String] = [:]
        for name in ["PROPD_SOCKET", "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        path = SocketPath.default(environment: environment)
        if let explicit = environment["PROPD_SOCKET"], !explicit.isEmpty {
            origin = .environment
        } else {
            origin = getuid() == 0 ? .systemDefault : .userDefault
        }
    }

    /// What to try when nothing answers at `path`.
    var unreachableHint: [String] {
        let from: String
        switch origin {
        case .flag: from = "given with --socket"
        case .environment: from = "from PROPD_SOCKET"
        case .userDefault: from = "propd's default socket for this user"
        case .systemDefault: from = "propd's system socket"
        }
        var hint = ["hint: tried \(path) (\(from)). Is propd running?"]
        switch origin {
        case .systemDefault:
            hint.append("      start it with `systemctl start propd.socket` (or run `propd`)")
        case .userDefault:
            hint.append("      start it with `propd &` (it listens here by default),")
            hint.append("      or point propctl at a running daemon with --socket PATH or PROPD_SOCKET")
        case .flag, .environment:
            hint.append("      start it with `propd --socket \(path) &`, or check the path")
        }
        return hint
    }
}
