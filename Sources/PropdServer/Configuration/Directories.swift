#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Creates the directories the socket and the database live in, before
/// binding and opening: missing components are made with mode 0700, so a
/// user's propd is private to that user. Under systemd they already exist
/// (`RuntimeDirectory=`, `StateDirectory=`), and nothing is created.
///
/// The directory that will hold the socket or the database must belong to
/// this user or to root, and must not be writable by others unless sticky
/// (as `/tmp` is): otherwise another user could replace the socket, e.g. by
/// creating `/tmp/propd-1000` first.
///
/// ```swift
/// try Directories.prepare(for: [config.socketPath, config.databasePath], uid: getuid())
/// ```
public enum Directories {
    /// Makes sure each file's parent directory exists and is safe.
    public static func prepare(for files: [String], uid: UInt32) throws(DirectoryError) {
        for file in files {
            guard let slash = file.lastIndex(of: "/") else { continue }  // relative, in the working directory
            let parent = String(file[..<slash])
            if parent.isEmpty { continue }  // a file in /
            try create(parent)
            try checkSafe(parent, uid: uid)
        }
    }

    /// `mkdir -p` with 0700 for each missing component.
    static func create(_ directory: String) throws(DirectoryError) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0 {
                let code = errno
                guard code == EEXIST else { throw .cannotCreate(path, errno: code) }
                var status = stat()
                guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path) }
            }
        }
    }

    static func checkSafe(_ directory: String, uid: UInt32) throws(DirectoryError) {
        var status = stat()
        guard stat(directory, &status) == 0 else { throw .cannotCreate(directory, errno: errno) }
        guard status.st_uid == uid || status.st_uid == 0 else { throw .ownedByAnotherUser(directory, owner: status.st_uid) }
        // Group-writable is accepted: with user private groups (umask 002) a
        // user's own directories are 0775, and the group is theirs alone.
        let sticky = status.st_mode & S_ISVTX != 0
        if status.st_mode & S_IWOTH != 0, !sticky { throw .writableByOthers(directory) }
    }
}

/// A directory for the socket or the database that propd cannot use safely.
public enum DirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    case cannotCreate(String, errno: Int32)
    case notADirectory(String)
    case ownedByAnotherUser(String, owner: UInt32)
    case writableByOthers(String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let code): return "cannot create directory \(path): \(String(cString: strerror(code)))"
        case .notADirectory(let path): return "\(path) exists and is not a directory"
        case .ownedByAnotherUser(let path, let owner):
            return "directory \(path) belongs to uid \(owner); propd will not put its socket or database there"
        case .writableByOthers(let path):
            return "directory \(path) is writable by every user and not sticky; propd will not put its socket or database there"
        }
    }
}
