/// Where propd keeps its socket, database and binding files when nothing says
/// otherwise: the contract's embedded defaults, chosen from the environment.
///
/// ```swift
/// let paths = DefaultPaths(environment: ProcessInfo.processInfo.environment, uid: getuid())
/// paths.socket   // "$XDG_RUNTIME_DIR/propd/propd.sock" for a user
/// ```
public struct DefaultPaths: Sendable, Equatable {
    public var socket: String
    public var database: String
    public var bindings: String
    /// The config file read when `--config` is not given; `nil` for a user,
    /// who runs on flags and defaults alone.
    public var config: String?

    /// The paths of a system service (root).
    public static let system = DefaultPaths(
        socket: "/run/propd/propd.sock",
        database: "/var/lib/propd/propd.db",
        bindings: "/etc/propd/bindings.d",
        config: "/etc/propd/propd.conf"
    )

    public init(socket: String, database: String, bindings: String, config: String?) {
        self.socket = socket
        self.database = database
        self.bindings = bindings
        self.config = config
    }

    /// The defaults for a process with this environment and user id: root gets
    /// the system paths, anyone else the XDG locations. `PROPD_SOCKET`
    /// overrides the socket either way.
    public init(environment: [String: String], uid: UInt32) {
        if uid == 0 {
            self = .system
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/propd-\(uid)-home"
            func xdg(_ name: String, _ fallback: String) -> String {
                // The XDG spec says relative values are invalid and must be ignored.
                if let v = environment[name], v.hasPrefix("/") { return v }
                return fallback
            }
            let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 + "/propd" : nil }
            self.init(
                socket: (runtime ?? "/tmp/propd-\(uid)") + "/propd.sock",
                database: xdg("XDG_STATE_HOME", home + "/.local/state") + "/propd/propd.db",
                bindings: xdg("XDG_CONFIG_HOME", home + "/.config") + "/propd/bindings.d",
                config: nil
            )
        }
        if let socket = environment["PROPD_SOCKET"], !socket.isEmpty {
            self.socket = socket
        }
    }
}
