/// What only the group-commit writer uses, kept between batches: its
/// prepared statements, the history compaction counters and the heads of
/// the history chains it has extended.
///
/// `@unchecked Sendable` is sound here: these fields are read and written
/// only by `GroupCommit.commit` (and its deinit, when nothing else can run),
/// which runs only inside the blocks of the ``WriterQueue``, a serial queue
/// that runs them one at a time. No two threads ever touch them at once.
final class WriterLocal: @unchecked Sendable {
    var statements: WriterStatements?
    var compaction: HistoryCompaction
    let heads = HistoryHeads()

    init(compaction: HistoryCompaction) {
        self.compaction = compaction
    }
}
