import Synchronization

/// Copies the write-ahead log back into the database file after the callers
/// of a commit are answered, instead of inside the commit that happens to
/// cross SQLite's auto-checkpoint threshold (which would hold that commit,
/// and every caller waiting on it, for two fsyncs and a copy of the log).
///
/// Installed as the writer connection's WAL hook, which switches SQLite's own
/// auto-checkpoint off. A commit that leaves at least `threshold` pages in
/// the log only marks a checkpoint due; the writer runs it (PASSIVE, on its
/// own connection, between transactions) once that batch is answered, so the
/// log is complete in the file when the next transaction starts and SQLite
/// starts the log over.
final class WALCheckpointer: Sendable {
    private let threshold: Int32
    private let due = Atomic<Bool>(false)
    private let checkpoints = Atomic<Int>(0)

    init(threshold: Int32 = 1000) {
        self.threshold = threshold
    }

    /// Hooks the writer connection's commits.
    ///
    /// The hook holds `self` unretained: the caller keeps the checkpointer
    /// alive as long as anything may commit on `writer` (the group-commit
    /// writer owns it, and every commit runs inside that writer).
    func install(on writer: SQLiteConnection) {
        writer.setWALHook({ context, _, _, pages in
            if let context {
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: pages)
            }
            return 0  // SQLITE_OK
        }, context: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether a commit left the log over the threshold.
    var isDue: Bool { due.load(ordering: .relaxed) }

    /// Checkpoints run so far.
    var completed: Int { checkpoints.load(ordering: .relaxed) }

    /// Runs the due checkpoint on the writer connection, outside any transaction.
    /// A checkpoint that fails (an I/O error) is left for the next one
    /// due: the log keeps every commit meanwhile, and a failing disk fails
    /// the next commit with its own named error.
    func checkpoint(_ writer: SQLiteConnection) {
        guard due.exchange(false, ordering: .relaxed) else { return }
        if (try? writer.checkpoint(.passive)) != nil {
            checkpoints.add(1, ordering: .relaxed)
        }
    }

    private func committed(walPages: Int32) {
        if walPages >= threshold { due.store(true, ordering: .relaxed) }
    }
}
