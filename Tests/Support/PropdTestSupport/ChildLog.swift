public import Foundation

/// A child's log file as its stderr (and stdout), without a descriptor left
/// open in the test process: the parent's copy is closed once the child has
/// its own. A daemon or etcd member per test, hundreds at once, each holding
/// one for its life, brought the test process near the descriptor count at
/// which Foundation's spawn crashes (``ProcessLaunch``).
public struct ChildLog {
    private let descriptor: Int32
    /// What to give the `Process` as `standardError` / `standardOutput`.
    public let handle: FileHandle

    /// Opens `path` for writing: truncated, or appended to with `append`.
    public init(path: String, append: Bool = false) throws {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    }

    /// Closes the parent's copy; call it once the child is spawned (or failed to be).
    public func closeInParent() {
        close(descriptor)
    }
}
