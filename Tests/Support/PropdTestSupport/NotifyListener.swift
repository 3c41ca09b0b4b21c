import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket that plays systemd's part: propd sends `READY=1`,
/// `STATUS=…`, `STOPPING=1` and `WATCHDOG=1` to it (`NOTIFY_SOCKET`), and the
/// tests wait for those messages instead of for time.
public final class NotifyListener: Sendable {
    public let path: String
    private let fd: Int32

    public struct Timeout: Error, CustomStringConvertible {
        public var waitingFor: String
        public var description: String { "no \(waitingFor) notification arrived in time" }
    }

    public init(directory: String) throws {
        path = directory + "/notify.sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let result = withUnixAddress(path) { bind(fd, $0, $1) }
        guard result == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    deinit { close(fd) }

    /// Receives messages until one contains the line `line` (e.g. `READY=1`),
    /// returning every message seen, or throws after `timeout`.
    @discardableResult
    public func wait(for line: String, timeout: Duration = .seconds(60)) throws -> [String] {
        var seen: [String] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw Timeout(waitingFor: line) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let millis = Int32(min(remaining.components.seconds * 1000 + 1, 60_000))
            // poll blocks until a message arrives: this waits on the event itself.
            guard poll(&pfd, 1, millis) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { continue }
            let message = String(decoding: buffer[0..<n], as: UTF8.self)
            seen.append(message)
            if message.split(separator: "\n").contains(where: { $0 == line }) { return seen }
        }
    }
}
