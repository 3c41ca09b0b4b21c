#if canImport(Glibc)
import Glibc
#endif
@testable import PropdServer
import Testing

@Suite struct ListenFDsTests {
    @Test func socketsForThisProcess() {
        let passed = ListenFDs.parse(environment: ["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "propd.socket:extra"], pid: 4242)
        #expect(passed == ListenFDs(descriptors: [3, 4], names: ["propd.socket", "extra"]))
    }

    @Test func aWrongListenPidIsIgnored() {
        #expect(ListenFDs.parse(environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1"], pid: 4242) == nil)
    }

    @Test func missingOrMalformedVariablesAreIgnored() {
        #expect(ListenFDs.parse(environment: [:], pid: 7) == nil)
        #expect(ListenFDs.parse(environment: ["LISTEN_FDS": "1"], pid: 7) == nil)  // no LISTEN_PID
        #expect(ListenFDs.parse(environment: ["LISTEN_PID": "7"], pid: 7) == nil)
        #expect(ListenFDs.parse(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "0"], pid: 7) == nil)
        #expect(ListenFDs.parse(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "-1"], pid: 7) == nil)
        #expect(ListenFDs.parse(environment: ["LISTEN_PID": "seven", "LISTEN_FDS": "1"], pid: 7) == nil)
        #expect(ListenFDs.parse(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "x"], pid: 7) == nil)
    }

    @Test func namesThatDoNotMatchTheCountAreDropped() {
        let passed = ListenFDs.parse(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "a:b"], pid: 7)
        #expect(passed == ListenFDs(descriptors: [3], names: []))
    }

    /// Like `sd_listen_fds(1)`, taking the variables unsets all three, even
    /// when they were meant for another process. (Through a copy of the
    /// environment: `setenv` here would race with the other tests' process
    /// spawns, which read `environ`; the real environment is taken by the
    /// socket-activation tests of a real propd.)
    @Test func takingUnsetsTheVariablesAndIgnoresAnotherProcessesSockets() {
        var environment = ["LISTEN_PID": "4243", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "propd.socket", "HOME": "/root"]
        let passed = ListenFDs.take(reading: { environment[$0] }, unsetting: { environment.removeValue(forKey: $0) }, pid: 4242)
        #expect(passed == nil)
        #expect(environment == ["HOME": "/root"])
    }

    @Test func takingTheVariablesOfThisProcessParsesThem() {
        var environment = ["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "propd.socket:extra"]
        let passed = ListenFDs.take(reading: { environment[$0] }, unsetting: { environment.removeValue(forKey: $0) }, pid: 4242)
        #expect(passed == ListenFDs(descriptors: [3, 4], names: ["propd.socket", "extra"]))
        #expect(environment.isEmpty)
    }

    @Test func aListeningUnixStreamSocketPassesTheCheck() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/l.sock"
        let fd = try unixSocket(type: SOCK_STREAM, boundTo: path)
        defer { close(fd) }
        #expect(throws: PassedSocketError.notListening(fd)) { try ListenFDs.checkListeningUnixStream(fd) }
        #expect(listen(fd, 8) == 0)
        #expect(try ListenFDs.checkListeningUnixStream(fd) == path)
    }

    @Test func otherDescriptorsFailTheCheck() throws {
        let dir = try TemporaryDirectory()
        let datagram = try unixSocket(type: SOCK_DGRAM, boundTo: dir.path + "/d.sock")
        defer { close(datagram) }
        #expect(throws: PassedSocketError.notAStreamSocket(datagram)) { try ListenFDs.checkListeningUnixStream(datagram) }

        var pipeFDs: [Int32] = [-1, -1]
        #expect(pipe(&pipeFDs) == 0)
        defer { close(pipeFDs[0]); close(pipeFDs[1]) }
        #expect(throws: PassedSocketError.notASocket(pipeFDs[0])) { try ListenFDs.checkListeningUnixStream(pipeFDs[0]) }

        let inet = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(inet >= 0)
        defer { close(inet) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(inet, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(listen(inet, 1) == 0)
        #expect(throws: PassedSocketError.notAUnixSocket(inet)) { try ListenFDs.checkListeningUnixStream(inet) }
    }
}

/// A Unix socket of `type` bound to `path`.
func unixSocket(type: __socket_type, boundTo path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(type.rawValue), 0)
    try #require(fd >= 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let status = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    try #require(status == 0)
    return fd
}

@Suite struct ListenAddressTests {
    @Test func withoutPassedSocketsTheConfiguredPath() throws {
        #expect(try ListenAddress.choose(socketPath: "/run/p.sock", passed: nil) == .path("/run/p.sock"))
    }

    @Test func aPassedListeningSocketIsAdopted() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/a.sock"
        let fd = try unixSocket(type: SOCK_STREAM, boundTo: path)
        defer { close(fd) }
        #expect(listen(fd, 4) == 0)
        let address = try ListenAddress.choose(socketPath: "/ignored.sock", passed: ListenFDs(descriptors: [fd]))
        #expect(address == .activated(fd: fd, path: path))
        #expect(address.description == path)
    }

    @Test func aPassedSocketThatCannotServeIsAnError() throws {
        let dir = try TemporaryDirectory()
        let fd = try unixSocket(type: SOCK_STREAM, boundTo: dir.path + "/b.sock")
        defer { close(fd) }
        #expect(throws: PassedSocketError.notListening(fd)) {
            try ListenAddress.choose(socketPath: "/x.sock", passed: ListenFDs(descriptors: [fd]))
        }
    }
}
