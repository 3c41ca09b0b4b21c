import Dispatch
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log back into the database file on a thread of its
/// own, instead of inside the commit that happens to cross SQLite's
/// auto-checkpoint threshold (which would stall that commit, and every
/// caller waiting on it, for two fsyncs and a copy of the log).
///
/// Installed as the writer connection's WAL hook, which also switches
/// SQLite's own auto-checkpoint off. After a commit leaves at least
/// `threshold` pages in the log, a PASSIVE checkpoint runs on a separate
/// connection: it copies what no reader still needs and never blocks the
/// writer or the readers. The writer starts the log over at its next
/// transaction once everything was copied.
final class WALCheckpointer: Sendable {
    private let path: String
    private let threshold: Int32
    private let queue = DispatchQueue(label: "propd.store.checkpoint")
    /// Whether a checkpoint is queued or running.
    private let busy = Atomic<Bool>(false)
    private let checkpoints = Atomic<Int>(0)
    /// The checkpointing connection, opened on first use; used only on `queue`.
    private let connection = Mutex<OpaquePointer?>(nil)

    init(path: String, threshold: Int32 = 1000) {
        self.path = path
        self.threshold = threshold
    }

    deinit {
        connection.withLock { handle in
            if let handle { sqlite3_close_v2(handle) }
            handle = nil
        }
    }

    /// Hooks the writer connection's commits.
    ///
    /// The hook holds `self` unretained: the caller keeps the checkpointer
    /// alive as long as anything may commit on `writer` (the group-commit
    /// writer owns it, and every commit runs inside that writer).
    func install(on writer: OpaquePointer) {
        sqlite3_wal_hook(writer, { context, _, _, pages in
            if let context {
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: pages)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Checkpoints run so far.
    var completed: Int { checkpoints.load(ordering: .relaxed) }

    /// Waits until no checkpoint runs (before a checkpoint of the writer's own).
    func waitUntilIdle() {
        queue.sync {}
    }

    private func committed(walPages: Int32) {
        guard walPages >= threshold,
            busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        queue.async { [self] in
            checkpoint()
            busy.store(false, ordering: .releasing)
        }
    }

    private func checkpoint() {
        connection.withLock { handle in
            if handle == nil {
                var opened: OpaquePointer?
                if sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK {
                    handle = opened
                } else {
                    // Tried again after the next commit over the threshold;
                    // meanwhile the log only grows.
                    sqlite3_close_v2(opened)
                    return
                }
            }
            guard let handle else { return }
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
                checkpoints.add(1, ordering: .relaxed)
            }
        }
    }
}
