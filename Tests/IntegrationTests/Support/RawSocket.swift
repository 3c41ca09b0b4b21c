import Foundation
import PropdTestSupport
import PropdCore

#if canImport(Glibc)
import Glibc
#endif

/// A bare Unix stream socket to the daemon, for sending bytes no
/// well-behaved client would (garbage, truncated frames, huge messages).
final class RawSocket {
    let fd: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        let result = withUnixAddress(path) { connect(fd, $0, $1) }
        guard result == 0 else {
            let failure = errno
            close(fd)
            throw Failure(description: "connect \(path): errno \(failure)")
        }
        // Set last: an initializer that throws once every property is set
        // runs deinit, which would close the descriptor a second time.
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; false when the daemon closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends one call as a NUL-terminated message.
    func call(_ method: String, _ parameters: JSONValue = .object([:]), more: Bool = false) -> Bool {
        var message: [String: JSONValue] = ["method": .string(method), "parameters": parameters]
        if more { message["more"] = true }
        return send(JSONValue.object(message).jsonBytes + [0])
    }

    private var buffer: [UInt8] = []

    /// The next message, or nil when the daemon closed the connection.
    /// Waits on the socket (poll) up to `timeout`.
    func receive(timeout: Duration = .seconds(30)) async throws -> [String: JSONValue]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let frame = Array(buffer[..<end])
                buffer.removeFirst(end + 1)
                guard case .object(let object) = try JSONValue(parsingUTF8: frame) else {
                    throw Failure(description: "reply is not an object")
                }
                return object
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw Failure(description: "no reply within \(timeout)") }
            let ready = await Self.waitReadable(fd, milliseconds: Int32(min(remaining.components.seconds * 1000 + 1, 60_000)))
            if !ready { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// True once the daemon has closed the connection (reads to EOF, dropping data).
    func waitForClose(timeout: Duration = .seconds(30)) async throws -> Bool {
        while true {
            guard try await receive(timeout: timeout) != nil else { return true }
        }
    }

    /// Whether `fd` became readable within `milliseconds`. The wait runs on a
    /// Dispatch thread: the cooperative pool has one thread per core (two
    /// here), and a test blocking one in `poll` while the daemon works through
    /// a large burst stalls every other test of the process.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                continuation.resume(returning: poll(&descriptor, 1, milliseconds) > 0)
            }
        }
    }
}
