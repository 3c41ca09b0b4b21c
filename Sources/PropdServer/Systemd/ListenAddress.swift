/// Where the daemon listens: a path it binds itself, or a socket systemd
/// passed already bound and listening (socket activation).
///
/// ```swift
/// switch try ListenAddress.choose(socketPath: config.socketPath, passed: ListenFDs.adopt()) {
/// case .path(let path):
///     try Directories.prepare(for: [path], uid: getuid())
///     // ServerBootstrap(...).bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
/// case .activated(let fd, _):
///     // ServerBootstrap(...).bind(fd)  -- adopt, do not bind
/// }
/// ```
public enum ListenAddress: Sendable, Hashable, CustomStringConvertible {
    case path(String)
    /// A passed listening socket; `path` is where it is bound ("" if unnamed).
    case activated(fd: Int32, path: String)

    /// The first passed socket when there is one (after checking it is a
    /// listening Unix stream socket), else the configured path. The
    /// configured `socket` is then ignored: the socket unit decides.
    public static func choose(socketPath: String, passed: ListenFDs?) throws(PassedSocketError) -> ListenAddress {
        guard let fd = passed?.descriptors.first else { return .path(socketPath) }
        let path = try ListenFDs.checkListeningUnixStream(fd)
        return .activated(fd: fd, path: path)
    }

    /// The socket path for logs and the STATUS line.
    public var description: String {
        switch self {
        case .path(let path): return path
        case .activated(let fd, let path): return path.isEmpty ? "passed socket (fd \(fd))" : path
        }
    }
}
