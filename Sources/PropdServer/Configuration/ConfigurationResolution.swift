#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The config file to read, as ``DaemonConfiguration/resolve(environment:uid:flags:file:directory:)`` takes it.
public struct ConfigurationText: Sendable, Hashable {
    public var path: String
    public var text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

extension DaemonConfiguration {
    /// Which config file applies: `--config FILE` (which must exist), else the
    /// system's `/etc/propd/propd.conf` for root when it exists, else none.
    public static func configFilePath(
        flags: DaemonFlags, defaults: DefaultPaths, fileExists: (String) -> Bool
    ) -> (path: String, required: Bool)? {
        if let path = flags.config { return (path, true) }
        if let path = defaults.config, fileExists(path) { return (path, false) }
        return nil
    }

    /// Resolves the configuration from its sources without touching the file
    /// system (the file's text is given). Pure but for name lookups in `directory`.
    public static func resolve(
        environment: [String: String], uid: UInt32, flags: DaemonFlags, file: ConfigurationText?,
        directory: any AccountDirectory = SystemAccountDirectory()
    ) throws(ConfigurationError) -> DaemonConfiguration {
        let defaults = DefaultPaths(environment: environment, uid: uid)
        var config = DaemonConfiguration(defaults: defaults, daemonUID: uid, directory: directory)
        if let file {
            let settings = try ConfigurationFile.parse(file.text, path: file.path, directory: directory)
            config.configFile = file.path
            config.ignoredSettings = settings.ignored.map { "\(file.path): \($0)" }
            if let v = settings.socket { config.socketPath = v }
            if let v = settings.database { config.databasePath = v }
            if let v = settings.bindings { config.bindingsDirectory = v }
            if let v = settings.durability { config.durability = v }
            if let v = settings.historyPerKey { config.historyPerKey = v }
            if let v = settings.logLevel { config.logLevel = v }
            for (limit, value) in settings.limits { config.limits[limit] = value }
            config.access = AccessPolicy(rules: settings.access, daemonUID: uid, directory: directory)
            config.cluster = settings.cluster
        }
        try resolveCluster(&config, flags: flags)
        // PROPD_SOCKET is a per-invocation choice, so it outranks the file.
        if let socket = environment["PROPD_SOCKET"], !socket.isEmpty { config.socketPath = socket }
        if let v = flags.socket { config.socketPath = v }
        if let v = flags.database { config.databasePath = v }
        if let v = flags.bindings { config.bindingsDirectory = v }
        if let v = flags.durability { config.durability = v }
        if let v = flags.historyPerKey {
            guard ConfigurationFile.historyPerKeyRange.contains(v) else {
                let range = ConfigurationFile.historyPerKeyRange
                throw ConfigurationError(
                    file: nil, problem: .invalidFlag(flag: "--history-per-key", value: String(v), reason: "is out of range; expected \(range.lowerBound)...\(range.upperBound)"))
            }
            config.historyPerKey = v
        }
        for (flag, path) in [("--socket", flags.socket), ("--database", flags.database), ("--bindings", flags.bindings)] {
            if let path, path.isEmpty {
                throw ConfigurationError(file: nil, problem: .invalidFlag(flag: flag, value: path, reason: "is an empty path"))
            }
        }
        // A file's socket was checked where it is written; the others are checked here.
        let bytes = config.socketPath.utf8.count
        if bytes > ConfigurationFile.maximumSocketPathBytes {
            let source =
                flags.socket != nil ? "--socket" : environment["PROPD_SOCKET"].map { $0.isEmpty ? nil : "PROPD_SOCKET" } ?? nil
            throw ConfigurationError(
                file: nil,
                problem: .invalidFlag(
                    flag: source ?? "the default socket path", value: config.socketPath,
                    reason: "is \(bytes) bytes; a Unix socket path holds at most \(ConfigurationFile.maximumSocketPathBytes)"))
        }
        return config
    }

    /// Resolves the configuration, reading the config file that applies.
    /// The daemon calls this at start and on SIGHUP; on error it must not
    /// start (or, on reload, keep running on the old configuration).
    public static func load(
        environment: [String: String], uid: UInt32, flags: DaemonFlags,
        directory: any AccountDirectory = SystemAccountDirectory()
    ) throws(ConfigurationError) -> DaemonConfiguration {
        let defaults = DefaultPaths(environment: environment, uid: uid)
        var file: ConfigurationText?
        if let (path, required) = configFilePath(flags: flags, defaults: defaults, fileExists: fileIsPresent) {
            do throws(ReadFailure) {
                file = ConfigurationText(path: path, text: try readText(path))
            } catch {
                // The system file may vanish between the check and the read; only --config must exist.
                if case .fileNotFound = error.problem, !required {
                    file = nil
                } else {
                    throw ConfigurationError(file: path, problem: error.problem)
                }
            }
        }
        return try resolve(environment: environment, uid: uid, flags: flags, file: file, directory: directory)
    }

    private struct ReadFailure: Error {
        let problem: ConfigurationError.Problem

        init(_ problem: ConfigurationError.Problem) { self.problem = problem }
        init(errno code: Int32) { self.init(code == ENOENT ? .fileNotFound : .unreadable(reason: String(cString: strerror(code)))) }
    }

    private static func readText(_ path: String) throws(ReadFailure) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadFailure(errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadFailure(errno: errno)  // EISDIR for a directory
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > 16 << 20 { throw ReadFailure(.unreadable(reason: "larger than 16 MiB")) }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw ReadFailure(.unreadable(reason: "not UTF-8 text")) }
        return text
    }
}

/// At file scope, where `access` is libc's and not ``DaemonConfiguration/access``.
private func fileIsPresent(_ path: String) -> Bool { access(path, F_OK) == 0 }

extension DaemonConfiguration {
    /// `--etcd` replaces the file's endpoints; `--etcd-prefix` its prefix
    /// and `--etcd-lease` its lease, each needing endpoints from one or the other.
    static func resolveCluster(_ config: inout DaemonConfiguration, flags: DaemonFlags) throws(ConfigurationError) {
        if let etcd = flags.etcd {
            let endpoints = try ClusterSettings.endpoints(etcd, flag: "--etcd")
            config.cluster = ClusterSettings(
                endpoints: endpoints, prefix: config.cluster?.prefix ?? ClusterSettings.defaultPrefix,
                leaseSeconds: config.cluster?.leaseSeconds ?? ClusterSettings.defaultLeaseSeconds)
        }
        if let lease = flags.etcdLease {
            let range = ClusterSettings.leaseSecondsRange
            guard range.contains(lease) else {
                throw ConfigurationError(
                    file: nil,
                    problem: .invalidFlag(
                        flag: "--etcd-lease", value: String(lease),
                        reason: "is out of range; expected \(range.lowerBound)...\(range.upperBound) seconds"))
            }
            guard config.cluster != nil else {
                throw ConfigurationError(
                    file: nil, problem: .invalidFlag(flag: "--etcd-lease", value: String(lease), reason: "needs --etcd (or cluster.etcd in the config file)"))
            }
            config.cluster?.leaseSeconds = lease
        }
        guard let prefix = flags.etcdPrefix else { return }
        if let reason = ClusterSettings.checkPrefix(prefix) {
            throw ConfigurationError(file: nil, problem: .invalidFlag(flag: "--etcd-prefix", value: prefix, reason: reason))
        }
        guard config.cluster != nil else {
            throw ConfigurationError(
                file: nil, problem: .invalidFlag(flag: "--etcd-prefix", value: prefix, reason: "needs --etcd (or cluster.etcd in the config file)"))
        }
        config.cluster?.prefix = prefix
    }
}
