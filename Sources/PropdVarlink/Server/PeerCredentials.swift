import NIOCore
import PropdEpoll

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `struct ucred` of <sys/socket.h>, which Swift's Glibc import hides
/// behind _GNU_SOURCE; same layout: three 32-bit fields.
private struct UnixCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

extension VarlinkPeerCredentials {
    /// Reads SO_PEERCRED of an accepted Unix socket. Succeeds with nil on
    /// platforms without it (the access rules then see no credentials).
    static func read(from channel: any Channel) -> EventLoopFuture<VarlinkPeerCredentials?> {
        #if os(Linux)
        guard let channel = channel as? EpollStreamChannel else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let credentials = try? channel.socketOption(level: SOL_SOCKET, name: SO_PEERCRED, as: UnixCredentials.self)
        return channel.loop.makeSucceededFuture(
            credentials.map { VarlinkPeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) })
        #else
        return channel.eventLoop.makeSucceededFuture(nil)
        #endif
    }
}
