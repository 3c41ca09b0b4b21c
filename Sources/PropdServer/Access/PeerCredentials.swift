#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import NIOCore

/// Who is at the other end of a Unix socket connection (`SO_PEERCRED`): the
/// credentials the peer process had when it connected.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var uid: UInt32
    public var gid: UInt32
    public var pid: Int32

    public init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }

    public var description: String { "uid \(uid) gid \(gid) pid \(pid)" }

    /// Reads the credentials of the peer of a connected Unix socket.
    public init(socket fd: Int32) throws(PeerCredentialsError) {
        var credentials = KernelCredentials()
        var length = socklen_t(MemoryLayout<KernelCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            throw PeerCredentialsError(errno: errno)
        }
        self.init(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
    }

    /// Reads the credentials of the peer of an accepted NIO Unix socket channel.
    ///
    /// ```swift
    /// let peer = try await PeerCredentials.of(channel)
    /// let rights = policy.rights(for: peer)   // once per connection
    /// ```
    public static func of(_ channel: any Channel) async throws -> PeerCredentials {
        guard let provider = channel as? any SocketOptionProvider else {
            throw PeerCredentialsError(errno: ENOTSOCK)
        }
        let credentials: KernelCredentials = try await provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
        ).get()
        return PeerCredentials(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
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
