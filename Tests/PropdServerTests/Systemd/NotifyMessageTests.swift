#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PropdServer
import Synchronization
import Testing

@Suite struct NotifyMessageTests {
    @Test func statusLine() {
        let status = ServiceStatus(socket: "/run/propd/propd.sock", keys: 1204, bindings: 1, connections: 3, subscriptions: 0, revision: 88123)
        #expect(status.line == "serving /run/propd/propd.sock: 1204 keys, 1 binding, 3 connections, 0 subscriptions, revision 88123")
        #expect(NotifyMessage.ready(status: status.line) == "READY=1\nSTATUS=" + status.line)
    }

    @Test func statusIsOneLine() {
        #expect(NotifyMessage.status("a\nb\r\nc") == "STATUS=a b c")
    }

    @Test func fixedMessages() {
        #expect(NotifyMessage.watchdog == "WATCHDOG=1")
        #expect(NotifyMessage.stopping.hasPrefix("STOPPING=1\n"))
        #expect(NotifyMessage.reloading.hasPrefix("RELOADING=1\n"))
    }

    /// The notifier sends one datagram per message to NOTIFY_SOCKET.
    @Test func notifierDeliversToARealSocket() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/notify.sock"
        let fd = try unixSocket(type: SOCK_DGRAM, boundTo: path)
        defer { close(fd) }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        #expect(notifier.send(NotifyMessage.ready(status: "serving")))
        #expect(notifier.send(NotifyMessage.watchdog))
        #expect(receive(fd) == "READY=1\nSTATUS=serving")
        #expect(receive(fd) == "WATCHDOG=1")
        #expect(!SystemdNotifier(environment: [:]).send("READY=1"))
    }

    /// A manager that stops reading its socket does not block the daemon:
    /// once the socket's queue is full, sending fails at once (best effort,
    /// as the notifier promises) instead of waiting for room forever.
    @Test func aManagerThatStopsReadingDoesNotBlockTheSender() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/notify.sock"
        let fd = try unixSocket(type: SOCK_DGRAM, boundTo: path)
        defer { close(fd) }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        let finished = DispatchSemaphore(value: 0)
        let refused = Mutex(0)
        DispatchQueue.global().async {
            // Far more than a datagram socket queues (net.unix.max_dgram_qlen, 512 by default).
            for _ in 0..<5_000 where !notifier.send(NotifyMessage.watchdog) {
                refused.withLock { $0 += 1 }
            }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 60) == .success, "send blocked on a socket nobody reads")
        #expect(refused.withLock { $0 } > 0, "the queue never filled: the test did not test anything")
        #expect(receive(fd) == "WATCHDOG=1", "what was queued is still delivered")
    }

    private func receive(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // No waiting: the datagram was sent before this call, so it is queued.
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
