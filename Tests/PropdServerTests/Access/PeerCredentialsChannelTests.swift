#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import PropdServer
import Testing

/// `PeerCredentials.of(channel)` on a real NIO Unix socket server, as the
/// daemon's listener calls it for each accepted connection.
@Suite struct PeerCredentialsChannelTests {
    @Test func acceptedChannelReportsTheConnectingProcess() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/p.sock"
        let (stream, continuation) = AsyncStream<Result<PeerCredentials, any Error>>.makeStream()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                Task {
                    do { continuation.yield(.success(try await PeerCredentials.of(channel))) } catch { continuation.yield(.failure(error)) }
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(unixDomainSocketPath: path).get()
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path).get()
        var iterator = stream.makeAsyncIterator()
        let received = try #require(await iterator.next())
        #expect(try received.get() == PeerCredentials(uid: getuid(), gid: getgid(), pid: getpid()))
        try await client.close()
        try await server.close()
    }
}
