/// What only the group-commit writer uses, kept between batches: its
/// prepared statements, the history compaction counters, the heads of the
/// history chains it has extended, the ids of its history rows and its
/// spare batch array.
///
/// `@unchecked Sendable` is sound here: these fields are read and written
/// only by the drainer of `GroupCommit` (`commit`, `takeBatch`,
/// `keepAsSpare`; and its deinit, when nothing else can run), which runs
/// only while it holds the ``WriterQueue`` (in its queue's blocks or in its
/// `sync`, under one lock). No two threads ever touch them at once.
final class WriterLocal: @unchecked Sendable {
    var statements: WriterStatements?
    var compaction: HistoryCompaction
    let heads = HistoryHeads()
    let rowIDs = HistoryRowIDs()
    /// The last batch's array, emptied with its storage kept: the requests
    /// queued after the next batch is taken go into it, not into an array
    /// grown from nothing at every batch.
    var spareBatch: [WriteJob] = []

    init(compaction: HistoryCompaction) {
        self.compaction = compaction
    }
}
