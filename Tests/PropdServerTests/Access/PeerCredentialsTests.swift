#if canImport(Glibc)
import Glibc
#endif
import PropdServer
import Testing

@Suite struct PeerCredentialsTests {
    @Test func readsTheCredentialsOfARealSocketPeer() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let peer = try PeerCredentials(socket: fds[0])
        #expect(peer == PeerCredentials(uid: getuid(), gid: getgid(), pid: getpid()))
    }

    @Test func aNonSocketIsAnError() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let error = #expect(throws: PeerCredentialsError.self) { try PeerCredentials(socket: fds[0]) }
        #expect(error?.errno == ENOTSOCK)
    }
}
