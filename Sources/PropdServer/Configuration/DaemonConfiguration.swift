public import Logging

/// Everything the daemon runs on, resolved once at start (and again on SIGHUP).
///
/// Each setting comes from, in rising precedence: the embedded defaults
/// (``DefaultPaths``: XDG paths for a user, system paths for root), the config
/// file, `PROPD_SOCKET` (socket only), then the command-line flags.
///
/// ```swift
/// let config = try DaemonConfiguration.load(
///     environment: ProcessInfo.processInfo.environment, uid: getuid(), flags: flags)
/// ```
public struct DaemonConfiguration: Sendable {
    public var socketPath: String
    public var databasePath: String
    public var bindingsDirectory: String
    public var durability: Durability
    /// History keeps at least this many values per key (contract default 100).
    public var historyPerKey: Int
    public var limits: ConfigurationLimits
    public var logLevel: Logger.Level
    /// The access rules, with the daemon's uid (which, like root, may do everything).
    public var access: AccessPolicy
    /// The config file read, or nil when none was (SIGHUP reads it again).
    public var configFile: String?
    /// Settings of the config file that have no effect, each with why
    /// (``ConfigurationFile/ignored``), for a warning at start and reload.
    public var ignoredSettings: [String] = []
    /// Cluster mode: the space in etcd (`--etcd`, `cluster:`); nil: SQLite.
    public var cluster: ClusterSettings?

    public static let defaultHistoryPerKey = 100
    public static let defaultLogLevel = Logger.Level.info

    /// The embedded defaults, before any file or flag.
    public init(defaults paths: DefaultPaths, daemonUID: UInt32, directory: any AccountDirectory = SystemAccountDirectory()) {
        socketPath = paths.socket
        databasePath = paths.database
        bindingsDirectory = paths.bindings
        durability = .full
        historyPerKey = Self.defaultHistoryPerKey
        limits = .defaults
        logLevel = Self.defaultLogLevel
        access = AccessPolicy(rules: [], daemonUID: daemonUID, directory: directory)
        configFile = nil
    }

    /// The configuration a SIGHUP reload switches to: `new`, except for the
    /// settings a running daemon cannot change, which keep their current
    /// values and are returned by name so the daemon can log a warning.
    ///
    /// ```swift
    /// do {
    ///     let loaded = try DaemonConfiguration.load(environment: env, uid: getuid(), flags: flags)
    ///     let (next, kept) = config.reloaded(to: loaded)
    ///     if !kept.isEmpty { logger.warning("restart propd to change these settings", metadata: ["settings": "\(kept)"]) }
    ///     config = next
    /// } catch {
    ///     logger.error("configuration not reloaded", metadata: ["error": "\(error)"])  // old one stays
    /// }
    /// ```
    public func reloaded(to new: DaemonConfiguration) -> (configuration: DaemonConfiguration, keptUntilRestart: [String]) {
        var next = new
        next.socketPath = socketPath
        next.databasePath = databasePath
        next.durability = durability
        next.cluster = cluster
        next.limits.maxMessageBytes = limits.maxMessageBytes
        return (next, settingsRequiringRestart(toBecome: new))
    }

    /// The settings that a running daemon cannot change on SIGHUP (the socket
    /// is bound and the database open), named as in the config file. A reload
    /// that changes one keeps the old value and should log a warning naming it.
    public func settingsRequiringRestart(toBecome new: DaemonConfiguration) -> [String] {
        var changed: [String] = []
        if socketPath != new.socketPath { changed.append("socket") }
        if databasePath != new.databasePath { changed.append("database") }
        if durability != new.durability { changed.append("durability") }
        if cluster != new.cluster { changed.append("cluster") }
        if limits.maxMessageBytes != new.limits.maxMessageBytes { changed.append("limits.max-message-bytes") }
        return changed
    }

    /// The settings a reload from this configuration to `new` changes while
    /// the daemon runs, named as in the config file.
    public func settingsChangedLive(toBecome new: DaemonConfiguration) -> [String] {
        var changed: [String] = []
        if historyPerKey != new.historyPerKey { changed.append("history-per-key") }
        if logLevel != new.logLevel { changed.append("log-level") }
        if bindingsDirectory != new.bindingsDirectory { changed.append("bindings") }
        if access.rules != new.access.rules { changed.append("access") }
        for limit in ConfigurationLimits.Limit.allCases where limit != .maxMessageBytes {
            if limits[limit] != new.limits[limit] { changed.append("limits." + limit.rawValue) }
        }
        return changed
    }
}
