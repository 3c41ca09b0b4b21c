import Foundation
import PropdTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// systemd's end of `NOTIFY_SOCKET`, read on a thread of its own so a test
/// can await READY=1, STOPPING=1 or WATCHDOG=1 without blocking the
/// concurrency pool (the daemon's client calls run there too).
/// The socket is mode 0666 in a traversable directory: a propd running as
/// another user can send to it.
final class NotifyInbox {
    let path: String
    private let fd: Int32
    private let messages = Mailbox<String>()
    private let stop = StopFlag()

    struct Timeout: Error, CustomStringConvertible {
        var waitingFor: String
        var seen: [String]
        var description: String { "no \(waitingFor) notification arrived in time; seen: \(seen)" }
    }

    init(path: String) throws {
        self.path = path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let result = withUnixAddress(path) { bind(fd, $0, $1) }
        guard result == 0, chmod(path, 0o666) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.fd = fd
        let (messages, stop) = (messages, stop)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !stop.isStopped {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                // A short poll only so the thread notices `stop`; messages wake it at once.
                guard poll(&pfd, 1, 200) > 0 else { continue }
                let n = recv(fd, &buffer, buffer.count, 0)
                if n > 0 { messages.push(String(decoding: buffer[0..<n], as: UTF8.self)) }
            }
            close(fd)
        }
        reader.start()
    }

    deinit {
        stop.stop()
        unlink(path)
    }

    /// Messages until one holds the line `line` (e.g. `READY=1`); returns
    /// them all, the matching one last.
    @discardableResult
    func wait(for line: String, timeout: Duration = .seconds(60)) async throws -> [String] {
        let (taken, found) = await messages.take(timeout: timeout) { message in
            message.split(separator: "\n").contains { $0 == line }
        }
        guard found else { throw Timeout(waitingFor: line, seen: taken) }
        return taken
    }
}
