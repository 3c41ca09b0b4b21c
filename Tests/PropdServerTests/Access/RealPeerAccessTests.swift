#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PropdTestSupport
import PropdCore
import PropdServer
import Testing

/// A client running as another real user (nobody, via setpriv) connects to a
/// real socket; its SO_PEERCRED credentials and the rules decide its rights.
/// Needs root to switch user; skipped otherwise.
@Suite struct RealPeerAccessTests {
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// The system's python: a pyenv shim under /root is not readable by nobody.
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: getuid() == 0 && setpriv != nil && python != nil, "needs root, setpriv and python3 to connect as another user"))
    func anotherUsersConnectionGetsThatUsersRights() throws {
        let directory = SystemAccountDirectory()
        let nobody = try #require(directory.userID(named: "nobody"))
        let nogroup = try #require(directory.groupID(named: "nogroup"))

        let dir = try TemporaryDirectory()
        #expect(chmod(dir.path, 0o755) == 0)
        let path = dir.path + "/peer.sock"
        let listener = try unixSocket(type: SOCK_STREAM, boundTo: path)
        defer { close(listener) }
        #expect(chmod(path, 0o666) == 0)
        #expect(listen(listener, 1) == 0)

        // The client connects, then waits for the server to close the connection.
        let client = Process()
        client.executableURL = URL(fileURLWithPath: Self.setpriv!)
        client.arguments = [
            "--reuid=\(nobody)", "--regid=\(nogroup)", "--clear-groups", Self.python!, "-c",
            "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.recv(1)", path,
        ]
        try ProcessLaunch.run(client)
        defer { client.terminate() }

        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        try #require(poll(&poller, 1, 30_000) == 1, "the client did not connect within 30 s")
        let connection = accept(listener, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }

        let peer = try PeerCredentials(socket: connection)
        #expect(peer.uid == nobody)
        #expect(peer.gid == nogroup)
        #expect(peer.pid != getpid())

        let file = ConfigurationText(path: "/c.conf", text: """
            access:
              - users: [nobody]
                read: ["public.**"]
              - groups: [nogroup]
                write: ["inbox.*"]
            """)
        let config = try DaemonConfiguration.resolve(environment: [:], uid: 0, flags: DaemonFlags(), file: file, directory: directory)
        let rights = config.access.rights(for: peer)
        #expect(!rights.isUnrestricted)
        #expect(rights.allows(.read, try Key("public.news")))
        #expect(!rights.allows(.write, try Key("public.news")))
        #expect(rights.allows(.write, try Key("inbox.a")))
        #expect(throws: PermissionDenied(key: "secret.x", mode: .read)) { try rights.check(.read, try Key("secret.x")) }
        // This process (root) may do everything.
        #expect(config.access.rights(for: PeerCredentials(uid: getuid(), gid: getgid(), pid: getpid())).isUnrestricted)
    }
}
