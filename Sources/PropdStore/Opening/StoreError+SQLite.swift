import Foundation
import GRDB

extension StoreError {
    /// The named error for an SQLite failure while opening `path`.
    init(opening error: any Error, path: String) {
        guard let dbError = error as? DatabaseError else {
            self = .cannotOpen(path: path, message: String(describing: error))
            return
        }
        let message = dbError.message ?? "\(dbError.resultCode)"
        switch dbError.resultCode {
        case .SQLITE_NOTADB: self = .notADatabase(path: path)
        case .SQLITE_CORRUPT: self = .corrupt(path: path, message: message)
        case .SQLITE_READONLY, .SQLITE_PERM: self = .readOnly(path: path, message: message)
        case .SQLITE_CANTOPEN:
            self = Self.isWritable(path: path)
                ? .cannotOpen(path: path, message: message)
                : .readOnly(path: path, message: message)
        case .SQLITE_FULL: self = .diskFull(message: message)
        default: self = .storage(code: dbError.resultCode.rawValue, message: message)
        }
    }

    /// The named error for an SQLite failure on an open store.
    init(operating error: any Error, path: String) {
        if let storeError = error as? StoreError {
            self = storeError
            return
        }
        guard let dbError = error as? DatabaseError else {
            self = .storage(code: -1, message: String(describing: error))
            return
        }
        let message = dbError.message ?? "\(dbError.resultCode)"
        switch dbError.resultCode {
        case .SQLITE_FULL: self = .diskFull(message: message)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: self = .corrupt(path: path, message: message)
        case .SQLITE_READONLY, .SQLITE_PERM: self = .readOnly(path: path, message: message)
        default: self = .storage(code: dbError.resultCode.rawValue, message: message)
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

    /// Whether both the file (when it exists) and its directory accept writes.
    /// `access(2)` also reports read-only mounts, which stop even root.
    static func isWritable(path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        let fileOK = !FileManager.default.fileExists(atPath: path) || access(path, W_OK) == 0
        return fileOK && access(directory.isEmpty ? "." : directory, W_OK) == 0
    }
}
