/// How a ``PropertyStore`` stores: durability, history retention, limits.
///
/// ```swift
/// let store = try PropertyStore(path: "/var/lib/propd/propd.db",
///                               configuration: StoreConfiguration(durability: .full))
/// ```
public struct StoreConfiguration: Sendable, Hashable {
    /// When a write is acknowledged.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// `synchronous=FULL`: the WAL is fsynced at every commit; survives power loss.
        case full
        /// `synchronous=NORMAL`: survives a crash of the process, not of the machine.
        case normal
    }

    public var durability: Durability
    /// History keeps at least this many of each key's most recent changes.
    public var historyPerKey: Int
    /// At most this many write requests share one SQLite transaction.
    public var maximumBatch: Int
    /// A cap on the database file size (rounded down to whole pages); writes
    /// that would exceed it fail with ``StoreError/diskFull(message:)``.
    /// `nil`: only the disk limits it.
    public var maximumDatabaseBytes: Int?

    public init(
        durability: Durability = .full,
        historyPerKey: Int = 100,
        maximumBatch: Int = 1024,
        maximumDatabaseBytes: Int? = nil
    ) {
        self.durability = durability
        self.historyPerKey = max(1, historyPerKey)
        self.maximumBatch = max(1, maximumBatch)
        self.maximumDatabaseBytes = maximumDatabaseBytes
    }
}
