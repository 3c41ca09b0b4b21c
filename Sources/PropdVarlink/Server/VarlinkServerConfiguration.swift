#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif
import NIOCore

/// Limits and policies of a ``VarlinkServer``.
public struct VarlinkServerConfiguration: Sendable {
    /// Largest message, in bytes without its NUL (default 8 MiB). A bigger
    /// one closes its connection after the violation reply.
    public var maximumMessageSize = VarlinkFrameDecoder.defaultMaximumMessageSize
    /// Deepest JSON nesting accepted in a message.
    public var maximumNestingDepth = VarlinkWireFormat.defaultMaximumDepth
    /// Open connections beyond this are refused (see ``connectionLimitReply``).
    public var maximumConnections = 1024
    /// Open connections of one peer user beyond this are refused the same
    /// way; the server's own user and ``unlimitedUsers`` are not limited.
    public var maximumConnectionsPerUser = 256
    /// Peer users never refused for the number of connections (neither
    /// limit), e.g. root, so that an administrator is never locked out.
    public var unlimitedUsers: Set<UInt32> = []
    /// Calls received but not yet answered on one connection beyond which the
    /// server stops reading from it until replies drain (a client pipelining
    /// without reading cannot grow the server's memory without bound).
    public var maximumPendingCallsPerConnection = 4096
    /// Calls started on one connection whose replies are not yet written:
    /// further calls wait (and the connection is not read) until replies
    /// leave. With the outbound high-water mark this bounds the replies held
    /// for one connection, however large each is.
    public var maximumStartedCallsPerConnection = 128
    /// Bytes of incomplete messages all connections together may hold
    /// (default 64 MiB); the connection whose message would pass it is closed.
    public var maximumPartialMessageBytes = 64 * 1024 * 1024
    /// A message must be complete within this time of its first byte
    /// (default 60 s); a connection sending slower (slowloris) is closed.
    /// Time while the server itself holds the connection's reads does not count.
    public var messageTimeout: Duration = .seconds(60)
    /// Permissions of the socket file of a ``VarlinkBindAddress/path(_:)``
    /// address, applied right after bind; nil leaves the umask's result.
    /// Between bind and chmod the file has the umask's permissions: put the
    /// socket in a directory only its users can reach (e.g. `/run/propd`, 0750).
    public var socketFileMode: mode_t? = 0o660
    /// Outbound bytes above which a connection reports not writable
    /// (``VarlinkReplyStream/isWritable``), and below which it recovers.
    public var outboundHighWaterMark = 256 * 1024
    public var outboundLowWaterMark = 64 * 1024
    /// The event loops a run serves its connections on when it is given
    /// none (each a thread; connections are spread over them in turn).
    public var eventLoopCount = System.coreCount
    /// How long a graceful shutdown waits for in-flight calls before closing
    /// every connection.
    public var gracefulShutdownTimeout: Duration = .seconds(5)

    /// The reply sent before closing a connection whose input cannot be read
    /// as messages; nil closes without a reply. The default answers
    /// `org.varlink.service.InvalidParameter(parameter: "message")` with a
    /// `reason` text; a service may map ``VarlinkProtocolViolation/messageTooLarge(limit:)``
    /// to its own limit error.
    public var protocolViolationReply: @Sendable (VarlinkProtocolViolation) -> VarlinkCallError? = { violation in
        VarlinkCallError(
            name: "org.varlink.service.InvalidParameter",
            parameters: ["parameter": "message", "reason": .string(violation.description)])
    }

    /// The reply to the first call of a connection refused because
    /// ``maximumConnections`` are open; nil closes it without a word.
    public var connectionLimitReply: VarlinkCallError? = nil

    /// The reply to a call whose handler threw something other than a
    /// ``VarlinkCallError`` (a bug; it is also logged at error level).
    public var unexpectedErrorReply: @Sendable (any Error) -> VarlinkCallError = { _ in
        VarlinkCallError(name: "org.varlink.service.InternalError")
    }

    public init() {}
}
