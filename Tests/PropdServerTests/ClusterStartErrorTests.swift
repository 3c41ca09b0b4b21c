import Foundation
import PropdEtcd
import PropdStore
import Testing

@testable import PropdServer

#if canImport(Glibc)
import Glibc
#endif

/// `Daemon.start` in cluster mode with no etcd to read the space from: a
/// named start error, no socket left listening, no database file made.
@Suite struct ClusterStartErrorTests {
    @Test func anEtcdThatCannotBeReachedIsNamedWithItsPrefixAndEndpoints() async throws {
        let directory = try TemporaryDirectory()
        let refusing = try #require(RefusingPort())
        defer { close(refusing.fd) }
        let endpoint = EtcdEndpoint(host: "127.0.0.1", port: refusing.port)
        var configuration = DaemonStartErrorTests.configuration(
            socket: directory.path + "/s", database: directory.path + "/db", in: directory)
        configuration.cluster = ClusterSettings(endpoints: [endpoint], prefix: "/propd/unreachable")

        // Fails once the client's bound for an unreachable cluster has passed.
        let error = await DaemonStartErrorTests.start(configuration)
        guard case .etcdSpaceUnreadable(let prefix, let endpoints, let cause)? = error else {
            Issue.record("expected etcdSpaceUnreadable, got \(String(describing: error))")
            return
        }
        #expect(prefix == "/propd/unreachable")
        #expect(endpoints == [endpoint.description])
        guard case .unavailable = cause else {
            Issue.record("expected the store's unavailable, got \(cause)")
            return
        }
        #expect(error?.description == "cannot read the space /propd/unreachable from etcd at \(endpoint): \(cause)")
        // Refused before the server was made: no socket; cluster mode made
        // no database file.
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/s"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/db"))
    }
}

/// A loopback TCP port bound but not listening: connections to it are
/// refused, and no other process can take it while `fd` is open.
struct RefusingPort {
    let fd: Int32
    let port: Int

    init?() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            return nil
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }
}
