import Foundation

/// A rollback journal beside the database: a write that was cut off (a crash
/// or power cut before its commit). SQLite rolls it back when a connection
/// that may write first reads the file, which restores the file as it was
/// before that write; only then is the file what it is.
///
/// Rolling back writes the file, so what it would be afterwards is checked
/// first on a private copy of the file and its journal: a file propd then
/// refuses (not propd's, from a newer propd, damaged) keeps its bytes and
/// its journal.
enum LeftoverJournal {
    /// Copies the file and its journal into a private directory, rolls the
    /// copy back and runs `check` on it; the copy is removed afterwards.
    static func inspectRolledBackCopy(
        of path: String, check: (String) throws(StoreError) -> Void
    ) throws(StoreError) {
        try PrivateCopy.inspect(path, with: "-journal", besideFile: "a rollback journal left by an interrupted write") {
            copy throws(StoreError) in
            try rollBack(path: copy, naming: path)
            try check(copy)
        }
    }

    /// Lets SQLite roll the journal of `path` back into it.
    static func rollBack(path: String) throws(StoreError) {
        try rollBack(path: path, naming: path)
    }

    private static func rollBack(path: String, naming named: String) throws(StoreError) {
        let message: String
        do {
            try SQLiteConnection(path: path, mode: .readWrite).execute("PRAGMA schema_version")
            return
        } catch {
            message = error.message
        }
        throw .cannotOpen(
            path: named,
            message: "it has a rollback journal left by an interrupted write (\(named)-journal), "
                + "which SQLite could not roll back: \(message)")
    }
}
