extension PropertyStore {
    /// Copies the write-ahead log into the database file and truncates it, so
    /// the file alone holds every committed write (a clean stop). Runs on the
    /// writer, after the writes queued before it. (While running, the writer
    /// checkpoints on its own between batches; see ``WriteStatistics/backgroundCheckpoints``.)
    public func checkpoint() throws(StoreError) {
        do {
            try writer.sync { connection in try connection.checkpoint(.truncate) }
        } catch {
            throw StoreError(operating: error, path: path)
        }
    }
}
