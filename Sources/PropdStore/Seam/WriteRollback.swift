/// What a write request's failure rolls back.
public enum WriteRollback: Sendable, Hashable {
    /// The body may throw after writing: it runs in a savepoint of its
    /// own, rolled back alone when it throws.
    case savepoint
    /// The body throws only before its first write (it validates, then
    /// writes; after that only a storage failure stops it, which fails
    /// the whole batch anyway). It runs without a savepoint, a tenth of
    /// a plain write's cost, unless it opens one before writing
    /// (``WriteTransaction/openSavepoint()``) once it finds it could fail
    /// after writing. Should it throw after writing without one, its
    /// whole batch is abandoned rather than half-kept.
    case validatesFirst
}
