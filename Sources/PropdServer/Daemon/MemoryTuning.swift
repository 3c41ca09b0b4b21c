import CMallocTuning

/// glibc's allocator tuned for a daemon with one busy writer thread.
///
/// By default glibc hands the writer's heap back to the kernel after every
/// commit (`free` trims the arena with `madvise`), and SQLite faults it back in
/// on the next one: one `madvise` per commit and page faults in every batch
/// (about a quarter of the writer's time under load, measured with
/// propd-bench). Keeping up to 64 MiB of freed memory stops that churn.
public enum MemoryTuning {
    public static func applyForDaemon() {
        propd_keep_freed_heap(64 << 20, 16 << 20)
    }
}
