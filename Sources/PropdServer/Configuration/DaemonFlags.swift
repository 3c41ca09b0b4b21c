/// The daemon's command-line flags, as the `propd` executable parsed them
/// (swift-argument-parser); nil means the flag was not given. Flags override
/// the config file, which overrides the embedded defaults.
///
/// ```
/// propd [--socket PATH] [--database PATH] [--bindings DIR] [--config FILE]
///       [--durability full|normal] [--history-per-key N]
///       [--etcd URL,URL,... [--etcd-prefix PREFIX] [--etcd-lease SECONDS]]
/// ```
public struct DaemonFlags: Sendable, Hashable {
    public var socket: String?
    public var database: String?
    public var bindings: String?
    /// A config file that must exist; replaces `/etc/propd/propd.conf`.
    public var config: String?
    public var durability: Durability?
    public var historyPerKey: Int?
    /// `--etcd`: the etcd members' client URLs, comma-separated (cluster mode).
    public var etcd: String?
    /// `--etcd-prefix`: where the space lives in etcd.
    public var etcdPrefix: String?
    /// `--etcd-lease`: the cluster leases' time to live, in seconds.
    public var etcdLease: Int?

    public init(
        socket: String? = nil, database: String? = nil, bindings: String? = nil, config: String? = nil,
        durability: Durability? = nil, historyPerKey: Int? = nil, etcd: String? = nil, etcdPrefix: String? = nil,
        etcdLease: Int? = nil
    ) {
        self.etcd = etcd
        self.etcdPrefix = etcdPrefix
        self.etcdLease = etcdLease
        self.socket = socket
        self.database = database
        self.bindings = bindings
        self.config = config
        self.durability = durability
        self.historyPerKey = historyPerKey
    }
}
