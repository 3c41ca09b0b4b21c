/// When a write is acknowledged, as the contract's `--durability` names it.
///
/// - `full` (the default): after the transaction is on stable storage, so it
///   survives a power loss (SQLite `synchronous=FULL`).
/// - `normal`: after the transaction is in the WAL, so it survives a crash of
///   the daemon but perhaps not of the machine (SQLite `synchronous=NORMAL`).
///
/// > Tip: the `propd` executable reads it from `--durability` with
/// > `extension Durability: @retroactive ExpressibleByArgument {}` (it is a
/// > `String`-backed `CaseIterable` enum).
public enum Durability: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case full
    case normal

    public var description: String { rawValue }
}
