#if canImport(Glibc)
import Glibc
#endif
import PropdClient

/// The socket propctl talks to and where that choice came from, so an
/// unreachable daemon can be explained.
struct SocketChoice: Sendable {
    enum Origin: Sendable {
        case flag, environment, userDefault, systemDefault
        /// The user's default socket does not exist, the system daemon's does.
        case systemFallback(userPath: String)
    }

    /// The system daemon's socket (propd.socket's ListenStream=).
    static let systemPath = "/run/propd/propd.sock"

    var path: String
    var origin: Origin

    /// `--socket`, else `PROPD_SOCKET`, else propd's default for this user,
    /// else — when that socket does not exist — the system daemon's socket.
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
        } else if getuid() == 0 {
            origin = .systemDefault
        } else if !Self.exists(path), Self.exists(Self.systemPath) {
            origin = .systemFallback(userPath: path)
            path = Self.systemPath
        } else {
            origin = .userDefault
        }
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// What to try when nothing answers at `path`, or when it refuses us.
    func unreachableHint(for error: PropdClientError) -> [String] {
        if case .cannotConnect(_, let reason) = error, reason.lowercased().contains("permission denied") {
            return permissionHint
        }
        let from: String
        switch origin {
        case .flag: from = "given with --socket"
        case .environment: from = "from PROPD_SOCKET"
        case .userDefault: from = "propd's default socket for this user"
        case .systemDefault: from = "propd's system socket"
        case .systemFallback(let user): from = "propd's system socket; this user's \(user) does not exist"
        }
        var hint = ["hint: tried \(path) (\(from)). Is propd running?"]
        switch origin {
        case .systemDefault, .systemFallback:
            hint.append("      start it with `systemctl start propd.socket` (or run `propd`)")
        case .userDefault:
            hint.append("      start it with `propd &` (it listens here by default),")
            hint.append("      or point propctl at a running daemon with --socket PATH or PROPD_SOCKET")
        case .flag, .environment:
            hint.append("      start it with `propd --socket \(path) &`, or check the path")
        }
        return hint
    }

    /// The socket (or its directory) is not ours to open: say which group
    /// grants access, as the socket's owner set it.
    var permissionHint: [String] {
        var info = stat()
        guard stat(path, &info) == 0 || lstat(path, &info) == 0 else {
            return ["hint: \(path) (or a directory above it) is not accessible to this user"]
        }
        let group = Self.groupName(info.st_gid) ?? "gid \(info.st_gid)"
        let mode = String(info.st_mode & 0o777, radix: 8)
        let user = Self.userName(getuid()) ?? "$USER"
        return [
            "hint: \(path) is mode 0\(mode), group \(group): members of group \(group) may connect.",
            "      add this user with `sudo usermod -aG \(group) \(user)` and log in again (or run `newgrp \(group)`)",
        ]
    }

    static func groupName(_ gid: gid_t) -> String? {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return nil }
        return String(cString: name)
    }

    static func userName(_ uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}
