import Foundation

extension StoreError {
    /// The named error for an SQLite failure while opening `path`.
    init(opening error: any Error, path: String) {
        guard let sqliteError = error as? SQLiteError else {
            self = .cannotOpen(path: path, message: String(describing: error))
            return
        }
        let message = sqliteError.message
        switch sqliteError.kind {
        case .notADatabase: self = .notADatabase(path: path)
        case .corrupt: self = .corrupt(path: path, message: message)
        case .readOnly: self = .readOnly(path: path, message: message)
        case .cannotOpen:
            self = Self.isReadOnly(path: path)
                ? .readOnly(path: path, message: message)
                : .cannotOpen(path: path, message: message)
        case .full: self = .diskFull(message: message)
        case .other: self = .storage(code: sqliteError.primaryCode, message: message)
        }
    }

    /// The named error for an SQLite failure on an open store.
    init(operating error: any Error, path: String) {
        if let storeError = error as? StoreError {
            self = storeError
            return
        }
        guard let sqliteError = error as? SQLiteError else {
            self = .storage(code: -1, message: String(describing: error))
            return
        }
        let message = sqliteError.message
        switch sqliteError.kind {
        case .full: self = .diskFull(message: message)
        case .corrupt, .notADatabase: self = .corrupt(path: path, message: message)
        case .readOnly: self = .readOnly(path: path, message: message)
        case .cannotOpen, .other: self = .storage(code: sqliteError.primaryCode, message: message)
        }
    }

    /// Whether a failure means the storage itself failed, so the whole batch
    /// it happened in must be abandoned (SQLite may have rolled it back).
    var isStorageFailure: Bool {
        switch self {
        case .diskFull, .storage, .corrupt, .readOnly, .notADatabase: return true
        default: return false
        }
    }

    /// Whether the file, or the directory it is (to be) in, exists but
    /// refuses writes. `access(2)` also reports read-only mounts, which stop
    /// even root; a missing directory is not "read-only" but "cannot open".
    static func isReadOnly(path: String) -> Bool {
        func refusesWrites(_ target: String) -> Bool {
            guard access(target, F_OK) == 0 else { return false }
            return access(target, W_OK) != 0
        }
        let directory = (path as NSString).deletingLastPathComponent
        return refusesWrites(path) || refusesWrites(directory.isEmpty ? "." : directory)
    }
}
