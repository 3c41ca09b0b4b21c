public import PropdCore

/// Why a store operation failed. Every case names what went wrong and carries
/// what a user needs to act on it; none of them leaves the database changed.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but is not an SQLite database. It was not modified.
    case notADatabase(path: String)
    /// The database is damaged (SQLite reported corruption). It was not repaired.
    case corrupt(path: String, message: String)
    /// An SQLite database that is not propd's (it has tables but no propd
    /// migrations). It was not modified.
    case notAPropdDatabase(path: String)
    /// The database or its directory cannot be written (permissions, a
    /// read-only mount, an immutable file).
    case readOnly(path: String, message: String)
    /// The file could not be opened at all (missing directory, permissions).
    case cannotOpen(path: String, message: String)
    /// The database was written by a newer propd: it holds migrations this
    /// build does not know. It was not modified.
    case newerSchema(path: String, unknownMigrations: [String], knownMigrations: [String])
    /// The disk (or the configured size limit) is full. The batch that hit it
    /// was rolled back as a whole; later writes succeed once space is back.
    case diskFull(message: String)
    /// Any other SQLite failure (I/O error, ...), with SQLite's message.
    case storage(code: Int32, message: String)
    /// `Delete` of a key that does not exist.
    case noSuchKey(Key)
    /// An expectation failed: `key` was expected at `expected` (0 = absent)
    /// but is at `actual` (0 = absent).
    case revisionMismatch(key: Key, expected: Revision, actual: Revision)
    /// History no longer reaches back to `since + 1`: changes after `since`
    /// are incomplete. Every change after `oldest - 1` is still available, so
    /// a client can resume with `since >= oldest - 1`.
    case compacted(since: Revision, oldest: Revision)
    /// The store was closed.
    case closed
    /// A cluster store cannot reach its backend (no etcd quorum) within its
    /// bound. Nothing of the write was applied.
    case unavailable(message: String)
    /// A cluster store lost its backend while a write was in flight and could
    /// not learn within its bound whether it was applied: read before retrying.
    case outcomeUnknown(message: String)
    /// The write exceeds a limit of the store's backend (for etcd:
    /// `--max-txn-ops`, `--max-request-bytes`, `--quota-backend-bytes`);
    /// `limit` names it, `maximum` is its value when known (else 0).
    /// Nothing of the write was applied.
    case limitExceeded(limit: String, maximum: Int)

    public var description: String {
        switch self {
        case .notADatabase(let path): return "\(path) is not an SQLite database; it was left untouched"
        case .corrupt(let path, let message): return "\(path) is corrupt (\(message)); it was left untouched"
        case .notAPropdDatabase(let path):
            return "\(path) is an SQLite database that propd did not create; it was left untouched"
        case .readOnly(let path, let message): return "\(path) cannot be written: \(message)"
        case .cannotOpen(let path, let message): return "cannot open \(path): \(message)"
        case .newerSchema(let path, let unknown, let known):
            return "\(path) was written by a newer propd (migrations \(unknown.joined(separator: ", ")) "
                + "are unknown to this build, which knows \(known.joined(separator: ", "))); it was left untouched"
        case .diskFull(let message): return "disk full, nothing of the write was stored: \(message)"
        case .storage(let code, let message): return "SQLite error \(code): \(message)"
        case .noSuchKey(let key): return "no such key: \(key)"
        case .revisionMismatch(let key, let expected, let actual):
            return "\(key) is at revision \(actual), expected \(expected)"
        case .compacted(let since, let oldest):
            return "history after revision \(since) was compacted; the oldest complete revision is \(oldest)"
        case .closed: return "the store is closed"
        case .unavailable(let message): return "the store is unavailable, nothing was applied: \(message)"
        case .outcomeUnknown(let message): return "the store lost a write in flight; it may or may not be applied: \(message)"
        case .limitExceeded(let limit, let maximum):
            return maximum > 0 ? "the write exceeds \(limit) (\(maximum)); nothing was applied"
                : "the write exceeds \(limit); nothing was applied"
        }
    }
}
