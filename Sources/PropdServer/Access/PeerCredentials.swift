#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import PropdVarlink

/// Who is at the other end of a Unix socket connection (`SO_PEERCRED`): the
/// credentials the peer process had when it connected. The Varlink server
/// reads them when it accepts a connection; this is the same type.
public typealias PeerCredentials = VarlinkPeerCredentials

extension VarlinkPeerCredentials {
    public init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.init(pid: pid, uid: uid, gid: gid)
    }

    /// Reads the credentials of the peer of a connected Unix socket.
    public init(socket fd: Int32) throws(PeerCredentialsError) {
        var credentials = KernelCredentials()
        var length = socklen_t(MemoryLayout<KernelCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            throw PeerCredentialsError(errno: errno)
        }
        self.init(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
    }
}

/// `struct ucred` of `<sys/socket.h>` (pid, uid, gid: three 32-bit fields on
/// every Linux ABI), which Swift's Glibc module hides behind `_GNU_SOURCE`.
/// `SO_PEERCRED` writes exactly this layout.
struct KernelCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// `SO_PEERCRED` could not be read (the descriptor is not a Unix socket, or is closed).
public struct PeerCredentialsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let errno: Int32

    public var description: String {
        "cannot read the peer's credentials: \(String(cString: strerror(errno)))"
    }
}
