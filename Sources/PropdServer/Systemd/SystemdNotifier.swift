#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tells the service manager about the daemon's state (`sd_notify(3)`):
/// one datagram per message to the socket named by `NOTIFY_SOCKET`.
/// Without `NOTIFY_SOCKET` every call does nothing, so propd can always call it.
///
/// ```swift
/// let notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment)
/// notifier.send("READY=1\nSTATUS=serving /run/propd/propd.sock")
/// ```
public struct SystemdNotifier: Sendable {
    /// The socket address from `NOTIFY_SOCKET`; a leading `@` names an abstract socket.
    public let socketPath: String?

    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        socketPath = (path.hasPrefix("/") || path.hasPrefix("@")) ? path : nil
    }

    /// Whether a service manager is listening.
    public var isEnabled: Bool { socketPath != nil }

    /// Sends one state message (`READY=1`, `STATUS=…`, `STOPPING=1`, `WATCHDOG=1`, …).
    /// Returns false when there is no manager or the datagram could not be sent;
    /// notification is best effort, as with `sd_notify`.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let payload = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                payload.withUnsafeBytes { bytes in
                    // Never waits: a manager that stops reading its socket must
                    // not stop the daemon (a full queue drops the message).
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), sockaddrPointer, length)
                }
            }
        }
        return sent == payload.count
    }
}
