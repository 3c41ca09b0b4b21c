#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One propd per database and per socket. Without this a second propd
/// started on the same paths would unlink the first one's socket when it
/// binds (leaving the first running but unreachable), and would write the
/// same database with a revision counter of its own.
enum Exclusivity {
    /// Locks the database file itself (its inode, so every spelling of it —
    /// `..`, a symlink, a hard link — meets the same lock), then takes an
    /// exclusive `flock` on `<database>.lock` (created 0600), which records
    /// the holder's pid. Both last until the process exits.
    static func lockDatabase(_ database: String, pid: Int32) throws(DaemonStartError) {
        try lockDatabaseInode(database)
        let path = database + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DaemonStartError.lockFileUnopenable(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var holder = [UInt8](repeating: 0, count: 32)
            let count = read(fd, &holder, holder.count)
            close(fd)
            guard code == EWOULDBLOCK else {
                throw DaemonStartError.lockFailed(path: path, reason: String(cString: strerror(code)))
            }
            let pid = count > 0 ? String(decoding: holder[0..<count], as: UTF8.self).trimmingNewline : "unknown"
            throw DaemonStartError.databaseInUse(database: database, pid: pid, lockFile: path)
        }
        let text = Array("\(pid)\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        // The descriptor stays open on purpose: the lock lasts as long as the
        // process, and the kernel releases it however the process ends.
    }

    /// A byte of the database file that SQLite never locks (its locks sit
    /// at 1 GiB, in `PENDING_BYTE`'s page): an open-file-description lock
    /// there conflicts only with another propd. Not a POSIX record lock:
    /// those belong to the process and vanish when SQLite closes any of its
    /// own descriptors of the file.
    private static let lockedByte = Int64.max - 1

    /// `F_OFD_SETLK` (Linux 3.15), which Glibc's module map does not export.
    private static let setOpenFileDescriptionLock: Int32 = 37

    private static func lockDatabaseInode(_ database: String) throws(DaemonStartError) {
        // A file propd cannot write, or that is not a file, is refused by the
        // store with its own error; there is nothing another propd could share.
        let fd = open(database, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(lockedByte)
        lock.l_len = 1
        guard fcntl(fd, setOpenFileDescriptionLock, &lock) == 0 else {
            let code = errno
            close(fd)
            guard code == EAGAIN || code == EACCES else { return }
            throw DaemonStartError.databaseInUseElsewhere(
                database: database, pid: holder(of: database), canonicalPath: canonicalPath(database))
        }
        // The descriptor stays open on purpose: the lock lasts as long as the process.
    }

    /// The pid the holder recorded in the lock file beside the database's
    /// canonical path, when it is there.
    private static func holder(of database: String) -> String {
        let fd = open(canonicalPath(database) + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "unknown" }
        defer { close(fd) }
        var text = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &text, text.count)
        return count > 0 ? String(decoding: text[0..<count], as: UTF8.self).trimmingNewline : "unknown"
    }

    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Refuses `path` when a process accepts connections on it; a socket
    /// file left by a propd that died is stale and may be replaced.
    static func checkSocketFree(_ path: String) throws(DaemonStartError) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        // Connected, or a full backlog (EAGAIN): someone is listening there.
        if result == 0 || errno == EAGAIN {
            throw DaemonStartError.socketInUse(path: path)
        }
    }
}

extension String {
    fileprivate var trimmingNewline: String {
        var text = self
        while text.last == "\n" || text.last == "\0" { text.removeLast() }
        return text
    }
}
