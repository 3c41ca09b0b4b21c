import Foundation

/// propd did not say READY=1 in time; carries what it logged.
struct NotReady: Error, CustomStringConvertible {
    var log: String
    var seen: [String]
    var description: String { "propd sent no READY=1 (notifications: \(seen)); its stderr:\n\(log)" }
}

extension Spawned {
    /// Waits for READY=1 on `inbox`; returns the notifications up to it.
    @discardableResult
    func ready(_ inbox: NotifyInbox, timeout: Duration = .seconds(60)) async throws -> [String] {
        do {
            return try await inbox.wait(for: "READY=1", timeout: timeout)
        } catch let timeout as NotifyInbox.Timeout {
            throw NotReady(log: log, seen: timeout.seen)
        }
    }
}

/// The usual private paths of one daemon in a scratch directory.
struct DaemonPaths {
    var socket: String
    var database: String
    var bindings: String
    var log: String

    init(_ directory: ScratchDirectory) {
        socket = directory.file("propd.sock")
        database = directory.file("db/propd.db")
        bindings = directory.file("bindings.d")
        log = directory.file("propd.log")
    }

    var arguments: [String] {
        ["--socket", socket, "--database", database, "--bindings", bindings, "--durability", "normal"]
    }
}

/// Whether a path exists (any kind of file).
func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
}

/// The mode bits and owner of a path.
func ownership(_ path: String) -> (mode: mode_t, uid: UInt32)? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return (status.st_mode & 0o7777, status.st_uid)
}

func isSocket(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
}

/// The size of a file, or nil when it does not exist.
func fileSize(_ path: String) -> Int? {
    var status = stat()
    return lstat(path, &status) == 0 ? Int(status.st_size) : nil
}
