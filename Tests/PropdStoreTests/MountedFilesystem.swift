import Foundation
import PropdTestSupport

/// A small tmpfs mounted for one test, so that "disk full" and "read-only"
/// are real. Needs root (the test sandbox runs as root); `nil` otherwise.
final class MountedFilesystem: Sendable {
    let path: String
    private let parent: TemporaryDirectory

    init?(sizeKiB: Int, name: String = #function) throws {
        parent = try TemporaryDirectory(name)
        path = parent.path + "/mnt"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", path]) else { return nil }
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN): the
    /// tests that need a real full or read-only filesystem run only then.
    static let isAvailable: Bool = {
        guard getuid() == 0, let probe = try? MountedFilesystem(sizeKiB: 64, name: "probe") else { return false }
        _ = probe
        return true
    }()

    /// Remounts read-only (root is stopped by this, unlike by chmod).
    func remount(readOnly: Bool) -> Bool {
        Self.run("/bin/mount", ["-o", "remount,\(readOnly ? "ro" : "rw")", path])
    }

    deinit {
        _ = Self.run("/bin/umount", ["-l", path])
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        do {
            try ProcessLaunch.run(process)
        } catch {
            return false
        }
        return ChildExit.wait(process) == 0
    }
}
