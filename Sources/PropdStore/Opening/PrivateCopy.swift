import Foundation

/// A copy of the database and one file beside it (its journal or its WAL)
/// in a directory of its own, for reading what SQLite would make of them
/// without creating or changing anything beside the database itself.
enum PrivateCopy {
    /// Copies `path` and `path + suffix` into a new private directory and
    /// runs `body` on the copy's path; the copy is removed afterwards.
    /// `cannotCopy` names the failure when no copy could be made.
    static func inspect(
        _ path: String, with suffix: String, cannotCopy: (String) -> StoreError,
        _ body: (String) throws(StoreError) -> Void
    ) throws(StoreError) {
        let files = FileManager.default
        let directory = files.temporaryDirectory.appendingPathComponent("propd-check-\(UUID().uuidString)")
        let copy = directory.appendingPathComponent("propd.db").path
        defer { try? files.removeItem(at: directory) }
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try files.copyItem(atPath: path, toPath: copy)
            try files.copyItem(atPath: path + suffix, toPath: copy + suffix)
        } catch {
            throw cannotCopy(error.localizedDescription)
        }
        try body(copy)
    }
}
