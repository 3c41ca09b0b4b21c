/// What derived values may cost: no binding may build a value larger than a
/// client could send, work without end on one evaluation, or make one write
/// recompute without bound. An evaluation beyond a limit puts its key in the
/// error state (`value too large …`, `evaluation too long …`) and stores
/// nothing of what it built.
///
/// ```swift
/// engine.limits = BindingLimits(maxValueBytes: 8 << 20)   // the daemon's max-message-bytes
/// ```
public struct BindingLimits: Sendable, Hashable {
    /// The largest value (its JSON text, about) a closure or `combineLatest`
    /// may produce: the same as a client's largest value.
    public var maxValueBytes: Int
    /// The work one closure call may do: one step per operation, plus one per
    /// byte (or element) an operation reads or builds.
    public var maxEvaluationSteps: Int
    /// The derived keys one revision may recompute; a write that would
    /// recompute more is refused as a whole (see ``Propagation/overflow``).
    public var maxRecomputationsPerRevision: Int

    /// 8 MiB values, 2^26 steps (tens of milliseconds of work), 100,000
    /// recomputations per revision.
    public static let defaults = BindingLimits()

    /// Values nested deeper than this are refused, as a client's JSON is.
    public static let maxDepth = 256

    public init(
        maxValueBytes: Int = 8 * 1024 * 1024, maxEvaluationSteps: Int = 1 << 26,
        maxRecomputationsPerRevision: Int = 100_000
    ) {
        self.maxValueBytes = maxValueBytes
        self.maxEvaluationSteps = maxEvaluationSteps
        self.maxRecomputationsPerRevision = maxRecomputationsPerRevision
    }
}
