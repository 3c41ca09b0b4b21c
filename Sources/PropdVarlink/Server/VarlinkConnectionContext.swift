public import Logging
public import NIOCore

/// What a handler knows about the connection a call came on.
///
/// A class, made once per connection: every call hands it on (to its
/// handler, into the closures that answer it), and a copy is then one
/// retain, where a struct of its six members retained each.
public final class VarlinkConnectionContext: Sendable {
    /// Unique per server run, in accept order.
    public let id: UInt64
    /// The peer process, read with SO_PEERCRED when the connection was
    /// accepted; nil where the platform cannot tell.
    public let peer: VarlinkPeerCredentials?
    /// The server's logger with `varlink.connection` metadata.
    public let logger: Logger
    /// The event loop the connection lives on (synchronous handlers run on it).
    public let eventLoop: any EventLoop
    /// Carries work from other threads to ``eventLoop``, batched with the
    /// loop's other connections' (see ``LoopMailbox``).
    public let mailbox: LoopMailbox
    /// Completes when the connection is closed: per-connection state kept by
    /// a service (subscription counts...) is released there.
    public let closeFuture: EventLoopFuture<Void>

    init(
        id: UInt64, peer: VarlinkPeerCredentials?, logger: Logger, eventLoop: any EventLoop, mailbox: LoopMailbox,
        closeFuture: EventLoopFuture<Void>
    ) {
        self.id = id
        self.peer = peer
        self.logger = logger
        self.eventLoop = eventLoop
        self.mailbox = mailbox
        self.closeFuture = closeFuture
    }
}

/// The credentials of the process at the other end of a Unix socket, as the
/// kernel recorded them when it connected.
public struct VarlinkPeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
