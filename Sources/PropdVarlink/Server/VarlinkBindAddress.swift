/// Where a ``VarlinkServer`` listens.
///
/// ```swift
/// .path("/run/propd/propd.sock")   // binds, replacing a stale socket file
/// .activated(fileDescriptor: 3)    // systemd socket activation (LISTEN_FDS)
/// ```
public struct VarlinkBindAddress: Sendable, Equatable, CustomStringConvertible {
    enum Value: Sendable, Equatable {
        case path(String)
        case activated(Int32)
    }

    let value: Value

    /// A Unix stream socket bound at `path`. A socket file left behind by an
    /// earlier run is removed first.
    public static func path(_ path: String) -> VarlinkBindAddress { VarlinkBindAddress(value: .path(path)) }

    /// An already bound and listening socket inherited from the service
    /// manager (systemd passes the first one as fd 3).
    public static func activated(fileDescriptor: Int32 = 3) -> VarlinkBindAddress {
        VarlinkBindAddress(value: .activated(fileDescriptor))
    }

    public var description: String {
        switch value {
        case .path(let path): return "unix:\(path)"
        case .activated(let fd): return "activated fd \(fd)"
        }
    }
}
