/// One etcd member's client URL, as given to `--etcd`: `http://host:port`.
///
/// ```swift
/// let endpoints = try EtcdEndpoint.list("http://h1:2379,http://h2:2379")
/// ```
///
/// Only plain `http` is accepted: TLS to etcd is not supported yet, and a
/// `https` endpoint is refused rather than silently spoken to in clear.
public struct EtcdEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `http://host:port` (the port defaults to 2379, etcd's client port).
    public init(_ url: String) throws(EtcdError) {
        let invalid = EtcdError(.invalidEndpoint, "'\(url)' is not an etcd client URL (http://host:port)")
        guard url.hasPrefix("http://") else { throw invalid }
        let authority = url.dropFirst("http://".count).split(separator: "/", omittingEmptySubsequences: false)[0]
        guard !authority.isEmpty else { throw invalid }
        if authority.hasPrefix("[") {  // [ipv6]:port
            guard let close = authority.firstIndex(of: "]") else { throw invalid }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty {
                port = 2379
            } else {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { throw invalid }
                port = value
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2, !parts[0].isEmpty else { throw invalid }
            host = String(parts[0])
            if parts.count == 2 {
                guard let value = Int(parts[1]) else { throw invalid }
                port = value
            } else {
                port = 2379
            }
        }
        guard (1...65535).contains(port) else { throw invalid }
    }

    /// Parses a comma-separated list of client URLs, as `--etcd` takes them.
    public static func list(_ urls: String) throws(EtcdError) -> [EtcdEndpoint] {
        let endpoints = try urls.split(separator: ",").map { (url) throws(EtcdError) in
            try EtcdEndpoint(String(url.filter { $0 != " " }))
        }
        guard !endpoints.isEmpty else { throw EtcdError(.invalidEndpoint, "no etcd endpoint given") }
        return endpoints
    }

    public var description: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }
}
