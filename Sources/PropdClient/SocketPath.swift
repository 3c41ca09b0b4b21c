#if canImport(Glibc)
import Glibc
#endif

/// Where a client finds propd: `PROPD_SOCKET`, else the daemon's embedded
/// default for this user (root: `/run/propd/propd.sock`; others:
/// `$XDG_RUNTIME_DIR/propd/propd.sock`, or `/tmp/propd-$UID/propd.sock`).
public enum SocketPath {
    public static func `default`(environment: [String: String]) -> String {
        `default`(environment: environment, uid: getuid())
    }

    /// The default socket for a process of user `uid` with this environment.
    public static func `default`(environment: [String: String], uid: UInt32) -> String {
        if let explicit = environment["PROPD_SOCKET"], !explicit.isEmpty { return explicit }
        if uid == 0 { return "/run/propd/propd.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/propd/propd.sock" }
        return "/tmp/propd-\(uid)/propd.sock"
    }
}
