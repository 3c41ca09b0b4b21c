import Foundation
import Logging
import Testing

@testable import PropdServer

#if canImport(Glibc)
import Glibc
#endif

/// `Daemon.start` refuses to start with a named error, in process: nothing is
/// listening afterwards and the message is the one propd logs.
@Suite struct DaemonStartErrorTests {
    static func configuration(socket: String, database: String, in directory: TemporaryDirectory) -> DaemonConfiguration {
        var configuration = DaemonConfiguration(
            defaults: DefaultPaths(environment: ["HOME": directory.path], uid: getuid()), daemonUID: getuid())
        configuration.socketPath = socket
        configuration.databasePath = database
        configuration.bindingsDirectory = directory.path + "/bindings"
        configuration.durability = .normal
        return configuration
    }

    static func start(_ configuration: DaemonConfiguration) async -> DaemonStartError? {
        do {
            _ = try await Daemon.start(
                configuration: configuration, flags: DaemonFlags(), environment: [:], logger: Logger(label: "test"))
            Issue.record("the daemon started")
            return nil
        } catch {
            return error
        }
    }

    @Test func aSocketDirectoryThatCannotBeMadeIsNamed() async throws {
        let directory = try TemporaryDirectory()
        // A regular file where the socket's directory should be.
        try directory.write("", to: "file")
        let socket = directory.path + "/file/run/propd.sock"
        let error = await Self.start(Self.configuration(socket: socket, database: directory.path + "/db", in: directory))
        guard case .directoryUnusable(let cause)? = error else {
            Issue.record("expected directoryUnusable, got \(String(describing: error))")
            return
        }
        #expect(error?.description == cause.description)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/db"))
    }

    @Test func aDatabaseThatCannotBeOpenedIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/db"
        try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
        let error = await Self.start(Self.configuration(socket: directory.path + "/s", database: database, in: directory))
        guard case .databaseUnopenable(let cause)? = error else {
            Issue.record("expected databaseUnopenable, got \(String(describing: error))")
            return
        }
        #expect(error?.description == "cannot open the database: \(cause)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/s"))
    }

    @Test func aSocketSomeoneListensOnIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.path + "/s"
        let listener = try #require(Self.listen(at: socket))
        defer { close(listener) }
        let error = await Self.start(Self.configuration(socket: socket, database: directory.path + "/db", in: directory))
        guard case .socketInUse(let path)? = error else {
            Issue.record("expected socketInUse, got \(String(describing: error))")
            return
        }
        #expect(path == socket)
        #expect(error?.description == "socket \(socket) is in use by another process; is propd already running?")
        // Refused before the database: none was created.
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/db"))
    }

    @Test func aLockedDatabaseIsNamedWithItsHolder() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/db"
        // The locks stay held by this process's descriptors until it exits;
        // the directory is removed, so nothing else meets them.
        try Exclusivity.lockDatabase(database, pid: 4242)
        #expect {
            try Exclusivity.lockDatabase(database, pid: getpid())
        } throws: { error in
            guard let error = error as? DaemonStartError,
                case .databaseInUseElsewhere(let named, let pid, _) = error
            else { return false }
            return named == database && pid == "4242"
                && error.description.hasPrefix("database \(database) is in use by another propd (pid 4242, locked through ")
        }
    }

    /// A Unix socket listening at `path`, or nil.
    static func listen(at path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 4) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
