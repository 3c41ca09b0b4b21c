public import PropdEtcd
import Yams

/// Cluster mode: the property space lives in etcd, shared by every propd
/// started on the same endpoints and prefix (contract 6.3).
///
/// ```
/// propd --etcd http://h1:2379,http://h2:2379,http://h3:2379 [--etcd-prefix /propd/default] [--etcd-lease 5]
/// ```
/// or in the config file:
/// ```yaml
/// cluster:
///   etcd: [http://h1:2379, http://h2:2379, http://h3:2379]
///   prefix: /propd/default
///   lease: 5
/// ```
public struct ClusterSettings: Sendable, Hashable {
    /// The etcd members' client URLs.
    public var endpoints: [EtcdEndpoint]
    /// Where the space lives in etcd; nodes share a space by sharing it.
    public var prefix: String

    /// The time to live, in seconds, of the leases that hold a node's part
    /// in the cluster: the timer election and the command relay's
    /// announcement. A node that dies is replaced (its deadlines fired by
    /// another, its executions ended with `NoHandler`) within it; a node cut
    /// off from etcd for longer loses its part.
    public var leaseSeconds: Int

    public static let defaultPrefix = "/propd/default"
    /// The contract's lease time.
    public static let defaultLeaseSeconds = 5
    /// Accepted by `cluster.lease` and `--etcd-lease`. etcd raises a TTL
    /// below its own minimum (about 2 s with its default election timeout).
    public static let leaseSecondsRange = 1...3600

    public init(endpoints: [EtcdEndpoint], prefix: String = Self.defaultPrefix, leaseSeconds: Int = Self.defaultLeaseSeconds) {
        self.endpoints = endpoints
        self.prefix = prefix
        self.leaseSeconds = leaseSeconds
    }

    /// `--etcd`'s comma-separated URLs.
    static func endpoints(_ text: String, flag: String) throws(ConfigurationError) -> [EtcdEndpoint] {
        do throws(EtcdError) {
            let endpoints = try EtcdEndpoint.list(text)
            guard !endpoints.isEmpty else { throw EtcdError(.invalidEndpoint, "no URL given") }
            return endpoints
        } catch {
            throw ConfigurationError(file: nil, problem: .invalidFlag(flag: flag, value: text, reason: "is not a list of etcd URLs: \(error.message)"))
        }
    }

    /// A prefix is an absolute etcd key path.
    static func checkPrefix(_ prefix: String) -> String? {
        prefix.hasPrefix("/") && prefix.count > 1 ? nil : "is not an etcd key prefix (it starts with / and names something)"
    }

    static let fileKeys = ["etcd", "prefix", "lease"]

    /// The `cluster:` section of a config file.
    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> ClusterSettings {
        var endpoints: [EtcdEndpoint]?
        var prefix = defaultPrefix
        var leaseSeconds = defaultLeaseSeconds
        for (key, value) in try reader.entries(node, of: "cluster", allowed: fileKeys) {
            if key == "lease" {
                leaseSeconds = try reader.integer(value, key: "cluster.lease", in: leaseSecondsRange)
                continue
            }
            if key == "prefix" {
                prefix = try reader.string(value, key: "cluster.prefix")
                if let reason = checkPrefix(prefix) {
                    throw reader.error(at: value, .invalidValue(key: "cluster.prefix", value: prefix, reason: reason))
                }
                continue
            }
            var list: [EtcdEndpoint] = []
            for (index, item) in try reader.list(value, key: "cluster.etcd").enumerated() {
                let url = try reader.string(item, key: "cluster.etcd[\(index)]")
                do {
                    list.append(try EtcdEndpoint(url))
                } catch {
                    throw reader.error(at: item, .invalidValue(key: "cluster.etcd[\(index)]", value: url, reason: "is not an etcd URL: \(error.message)"))
                }
            }
            guard !list.isEmpty else { throw reader.error(at: value, .missingKey("at least one URL", in: "cluster.etcd")) }
            endpoints = list
        }
        guard let endpoints else { throw reader.error(at: node, .missingKey("etcd (a list of URLs)", in: "cluster")) }
        return ClusterSettings(endpoints: endpoints, prefix: prefix, leaseSeconds: leaseSeconds)
    }
}
