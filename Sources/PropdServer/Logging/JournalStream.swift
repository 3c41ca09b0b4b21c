#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether standard error is connected to journald, as `systemd.exec(5)`
/// describes: `JOURNAL_STREAM` holds `DEVICE:INODE` of the stream systemd
/// connected, and it counts only when fd 2 is still that stream (a child
/// whose stderr was redirected inherits the variable but not the stream).
public enum JournalStream {
    /// Compares `JOURNAL_STREAM` with what `fstat(2)` says of fd 2.
    public static func isStandardErrorJournal(environment: [String: String]) -> Bool {
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return matches(environment: environment, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Whether `JOURNAL_STREAM` names this device and inode.
    public static func matches(environment: [String: String], device: UInt64, inode: UInt64) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let d = UInt64(parts[0]), let i = UInt64(parts[1]) else { return false }
        return d == device && i == inode
    }
}
