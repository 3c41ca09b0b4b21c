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
    /// The config file read, when it exists, if `--config` is not given; `nil`
    /// for a user outside a systemd service, who runs on flags and defaults alone.
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
    /// the system paths, anyone else the XDG locations; under systemd the
    /// unit's `STATE_DIRECTORY`, `RUNTIME_DIRECTORY` and `CONFIGURATION_DIRECTORY`
    /// win over both (`propd.db`, `propd.sock`, `propd.conf` and `bindings.d`
    /// in them). `PROPD_SOCKET` overrides the socket in every case.
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
        // Under systemd, StateDirectory=, RuntimeDirectory= and
        // ConfigurationDirectory= hand the service its directories (as
        // absolute paths, colon-separated when several are declared): use them,
        // so the system service (which runs as user propd, not root) gets the
        // system paths without repeating them as flags.
        func serviceDirectory(_ name: String) -> String? {
            guard let value = environment[name], let first = value.split(separator: ":").first, first.hasPrefix("/") else {
                return nil
            }
            return String(first)
        }
        if let state = serviceDirectory("STATE_DIRECTORY") { database = state + "/propd.db" }
        if let runtime = serviceDirectory("RUNTIME_DIRECTORY") { socket = runtime + "/propd.sock" }
        if let configuration = serviceDirectory("CONFIGURATION_DIRECTORY") {
            config = configuration + "/propd.conf"
            bindings = configuration + "/bindings.d"
        }
        if let socket = environment["PROPD_SOCKET"], !socket.isEmpty {
            self.socket = socket
        }
    }
}
