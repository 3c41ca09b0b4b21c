public import PropdService
public import PropdStore
public import PropdVarlink

/// Why the daemon could not start, each case named for what went wrong and
/// keeping its cause; propd logs `description` and exits 1.
public enum DaemonStartError: Error, Sendable, CustomStringConvertible {
    /// The descriptor systemd passed is not a listening Unix stream socket.
    case passedSocketUnusable(PassedSocketError)
    /// The socket's or the database's directory cannot be made, or is unsafe.
    case directoryUnusable(DirectoryError)
    /// Another process accepts connections on the socket path.
    case socketInUse(path: String)
    /// `<database>.lock` cannot be created or opened.
    case lockFileUnopenable(path: String, reason: String)
    /// `flock` on `<database>.lock` failed for another reason than a holder.
    case lockFailed(path: String, reason: String)
    /// Another propd holds `<database>.lock` (its pid as recorded there).
    case databaseInUse(database: String, pid: String, lockFile: String)
    /// Another propd holds the database's own lock, under another spelling of
    /// its path (`..`, a symlink, a hard link).
    case databaseInUseElsewhere(database: String, pid: String, canonicalPath: String)
    /// SQLite could not open or migrate the database.
    case databaseUnopenable(StoreError)
    /// The stored bindings or commands could not be restored.
    case serviceUnstartable(ServiceError)
    /// io.propd could not be registered on the Varlink server.
    case interfaceUnregistrable(VarlinkRegistrationError)

    public var description: String {
        switch self {
        case .passedSocketUnusable(let error): return "\(error)"
        case .directoryUnusable(let error): return "\(error)"
        case .socketInUse(let path): return "socket \(path) is in use by another process; is propd already running?"
        case .lockFileUnopenable(let path, let reason): return "cannot open the lock file \(path): \(reason)"
        case .lockFailed(let path, let reason): return "cannot lock \(path): \(reason)"
        case .databaseInUse(let database, let pid, let lockFile):
            return "database \(database) is in use by another propd (pid \(pid), lock \(lockFile))"
        case .databaseInUseElsewhere(let database, let pid, let canonicalPath):
            return "database \(database) is in use by another propd (pid \(pid), locked through \(canonicalPath))"
        case .databaseUnopenable(let error): return "cannot open the database: \(error)"
        case .serviceUnstartable(let error): return "cannot start the service: \(error)"
        case .interfaceUnregistrable(let error): return "cannot register io.propd: \(error)"
        }
    }
}
