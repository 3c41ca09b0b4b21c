/// The first storage failure (disk full, I/O error) met while running a
/// batch, noted even when a request's body catches and swallows the error:
/// SQLite may already have rolled the transaction back, so the whole batch
/// must be abandoned.
///
/// Used only on the writer, by one batch at a time; never shared across threads.
final class BatchFailure {
    var failure: StoreError?
}
