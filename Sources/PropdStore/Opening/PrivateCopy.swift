import Foundation

/// A copy of the database and one file beside it (its journal or its WAL)
/// in a directory of its own, for reading what SQLite would make of them
/// without creating or changing anything beside the database itself.
enum PrivateCopy {
    /// Copies `path` and `path + suffix` into a new private directory and
    /// runs `body` on the copy's path; the copy is removed afterwards.
    /// `besideFile` says what the file beside is, for the error when no
    /// copy could be made (`cannotOpen`).
    static func inspect(
        _ path: String, with suffix: String, besideFile: String, _ body: (String) throws(StoreError) -> Void
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
            throw .cannotOpen(
                path: path,
                message: "it has \(besideFile) (\(path)\(suffix)), and no copy could be made to check it before "
                    + "opening it: \(error.localizedDescription)")
        }
        try body(copy)
    }
}
