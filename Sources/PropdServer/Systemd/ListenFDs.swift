#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sockets passed by the service manager (socket activation, `sd_listen_fds(3)`):
/// `LISTEN_FDS=n` descriptors starting at fd 3, meant for the process whose
/// pid is `LISTEN_PID`, named by `LISTEN_FDNAMES`.
///
/// ```swift
/// if let passed = ListenFDs.adopt() {          // reads and unsets LISTEN_*
///     let fd = passed.descriptors[0]           // 3
///     try ListenFDs.checkListeningUnixStream(fd)
///     // ServerBootstrap(group:).bind(fd) { … } instead of binding a path
/// }
/// ```
public struct ListenFDs: Sendable, Hashable {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    /// The passed descriptors, in order: 3, 4, …
    public let descriptors: [Int32]
    /// Their names from `LISTEN_FDNAMES` (the socket unit's `FileDescriptorName=`,
    /// by default the unit name), one per descriptor, or empty.
    public let names: [String]

    public init(descriptors: [Int32], names: [String] = []) {
        self.descriptors = descriptors
        self.names = names
    }

    /// Reads the variables without touching anything. Nil when they are
    /// absent, malformed, zero, or meant for another process (`LISTEN_PID` is
    /// not `pid`): a child that inherited them must not take its parent's sockets.
    public static func parse(environment: [String: String], pid: Int32) -> ListenFDs? {
        guard let pidText = environment["LISTEN_PID"], let listenPID = Int32(pidText), listenPID == pid,
            let countText = environment["LISTEN_FDS"], let count = Int32(countText), count > 0,
            count <= Int32.max - firstDescriptor
        else { return nil }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        return ListenFDs(
            descriptors: Array(firstDescriptor..<(firstDescriptor + count)),
            names: names.count == Int(count) ? names : [])
    }

    /// What `sd_listen_fds(1)` does: parses this process's environment, unsets
    /// `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` (so children do not see
    /// them), and marks the descriptors close-on-exec.
    ///
    /// Call it once, early, before starting threads that read the environment.
    public static func adopt() -> ListenFDs? {
        let passed = take(
            reading: { name in getenv(name).map { String(cString: $0) } }, unsetting: { unsetenv($0) }, pid: getpid())
        for fd in passed?.descriptors ?? [] {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
        return passed
    }

    /// The variables read through `read` and removed through `unset` (all
    /// three, even when they were meant for another process), then parsed.
    static func take(reading read: (String) -> String?, unsetting unset: (String) -> Void, pid: Int32) -> ListenFDs? {
        var environment: [String: String] = [:]
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
            if let value = read(name) { environment[name] = value }
            unset(name)
        }
        return parse(environment: environment, pid: pid)
    }

    /// Throws unless `fd` is a listening `AF_UNIX` stream socket (as
    /// `sd_is_socket_unix(fd, SOCK_STREAM, 1, …)` checks), so a misconfigured
    /// socket unit is a clear error at start instead of a hang.
    /// Returns the socket's path ("" for an unnamed or abstract socket).
    @discardableResult
    public static func checkListeningUnixStream(_ fd: Int32) throws(PassedSocketError) -> String {
        func option(_ name: Int32) throws(PassedSocketError) -> Int32 {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 else {
                throw errno == ENOTSOCK ? .notASocket(fd) : .unusable(fd, errno: errno)
            }
            return value
        }
        guard try option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) else { throw .notAStreamSocket(fd) }
        guard try option(SO_ACCEPTCONN) != 0 else { throw .notListening(fd) }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { throw .unusable(fd, errno: errno) }
        guard address.sun_family == sa_family_t(AF_UNIX) else { throw .notAUnixSocket(fd) }
        let pathLength = Int(length) - MemoryLayout<sa_family_t>.size
        guard pathLength > 0 else { return "" }
        return withUnsafeBytes(of: &address.sun_path) { raw in
            let bytes = raw.prefix(pathLength)
            if bytes.first == 0 { return "" }  // abstract namespace
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// A descriptor passed by the service manager that propd cannot serve on.
public enum PassedSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    case notASocket(Int32)
    case notAStreamSocket(Int32)
    case notListening(Int32)
    case notAUnixSocket(Int32)
    case unusable(Int32, errno: Int32)

    public var description: String {
        switch self {
        case .notASocket(let fd): return "passed descriptor \(fd) is not a socket"
        case .notAStreamSocket(let fd): return "passed descriptor \(fd) is not a stream socket (ListenStream=)"
        case .notListening(let fd): return "passed descriptor \(fd) is not listening (Accept=no is needed)"
        case .notAUnixSocket(let fd): return "passed descriptor \(fd) is not a Unix socket"
        case .unusable(let fd, let code): return "passed descriptor \(fd) is unusable: \(String(cString: strerror(code)))"
        }
    }
}
