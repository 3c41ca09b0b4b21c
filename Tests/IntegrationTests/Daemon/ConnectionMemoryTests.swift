import Foundation
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The memory one connection can make the daemon hold is bounded: replies it
/// does not read, incomplete messages (all connections together), and a
/// message sent too slowly (slowloris) ends its connection.
@Suite struct ConnectionMemoryTests {
    /// The daemon's resident memory, from /proc.
    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let number = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return number * 1024
        }
        return 0
    }

    private func start(_ dir: ScratchDirectory, config: String? = nil) async throws -> (Spawned, DaemonPaths) {
        let started = try await PropdLaunch.ready(in: dir, config: config)
        return (started.daemon, started.paths)
    }

    @Test func pipelinedGetsOfALargeValueThatAreNotReadDoNotGrowTheDaemon() async throws {
        let dir = try ScratchDirectory("pipelined-gets")
        let (daemon, paths) = try await start(dir)
        let socket = try RawSocket(path: paths.socket)
        #expect(socket.call("io.propd.Set", ["values": ["big": .string(String(repeating: "m", count: 1 << 20))]]))
        #expect(try await socket.receive()?["error"] == nil)
        let idle = Self.residentBytes(daemon.pid)

        // 500 Gets in one write (about 20 KB), none of the replies read yet.
        let get = JSONValue.object(["method": "io.propd.Get", "parameters": ["keys": ["big"]]]).jsonBytes + [0]
        var burst: [UInt8] = []
        for _ in 0..<500 { burst += get }
        #expect(socket.send(burst))
        var largest = 0
        var replies = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while replies < 500 {
            largest = max(largest, Self.residentBytes(daemon.pid))
            guard await RawSocket.waitReadable(socket.fd, milliseconds: 120_000) else { break }
            let n = recv(socket.fd, &chunk, chunk.count, 0)
            guard n > 0 else { break }
            replies += chunk.withUnsafeBytes { bytes in
                var count = 0
                var offset = 0
                while offset < n, let base = bytes.baseAddress,
                    let found = memchr(base + offset, 0, n - offset)
                {
                    count += 1
                    offset = base.distance(to: UnsafeRawPointer(found)) + 1
                }
                return count
            }
        }
        #expect(replies >= 500)
        // Unbounded, the replies of the whole burst were held at once (500 MiB);
        // with a window of started calls, 128 replies (135 MiB). A Get is
        // answered at once and written before the next starts, so a reply
        // that fills the outbound buffer holds the rest back (issue's target:
        // 64 MiB above idle; see BENCHMARKS.md).
        #expect(largest - idle < 64 * 1024 * 1024, "RSS grew by \((largest - idle) >> 20) MiB")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    @Test func aMessageSentTooSlowlyClosesItsConnectionOnly() async throws {
        let dir = try ScratchDirectory("slowloris")
        let (daemon, paths) = try await start(dir, config: "limits:\n  max-message-seconds: 1\n")
        let slow = try RawSocket(path: paths.socket)
        #expect(slow.send(#"{"method": "io.propd.Get", "parameters": {"keys": ["#))
        let bystander = try RawSocket(path: paths.socket)
        #expect(bystander.call("io.propd.Set", ["values": ["a": 1]]))
        #expect(try await bystander.receive()?["error"] == nil)
        let explanation = try #require(try await slow.receive(timeout: .seconds(60)))
        #expect(explanation["error"] == "org.varlink.service.InvalidParameter")
        #expect(try await slow.waitForClose(timeout: .seconds(60)))
        #expect(bystander.call("io.propd.Get", ["keys": ["a"]]))
        #expect(try await bystander.receive()?["error"] == nil)
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    @Test func incompleteMessagesOfAllConnectionsTogetherAreCapped() async throws {
        let dir = try ScratchDirectory("partial-cap")
        let (daemon, paths) = try await start(dir, config: "limits:\n  max-partial-message-bytes: 1048576\n")
        let chunk = Array(#"{"method": "io.propd.Set", "parameters": {"values": {"k": ""#.utf8)
            + [UInt8](repeating: UInt8(ascii: "p"), count: 400_000)
        let first = try RawSocket(path: paths.socket)
        let second = try RawSocket(path: paths.socket)
        #expect(first.send(chunk))
        #expect(second.send(chunk))
        // Both are held (800 KB); make sure the daemon has read them before the third.
        let probe = try RawSocket(path: paths.socket)
        #expect(probe.call("io.propd.Stats"))
        #expect(try await probe.receive()?["error"] == nil)
        let third = try RawSocket(path: paths.socket)
        third.send(chunk)
        let refused = try #require(try await third.receive(timeout: .seconds(60)))
        #expect(refused["error"] == "io.propd.LimitExceeded")
        #expect(refused["parameters"]?["limit"] == "max-partial-message-bytes")
        // The first completes its message and is answered.
        #expect(first.send(Array(#""}}}"#.utf8) + [0]))
        #expect(try await first.receive()?["error"] == nil)
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }
}
