/// The keys of a command (CONTRACT 6.2): a command's name is a key `CMD`;
/// `CMD.enabled` is the users' (set or bound), `CMD.executing` and
/// `CMD.error` are kept by propd.
///
/// ```swift
/// let keys = try CommandKeys(Key("login.submit"))
/// keys.executing   // login.submit.executing
/// ```
public struct CommandKeys: Sendable, Hashable {
    public let command: Key
    /// `CMD.enabled`: when it exists and is not `true`, Execute is refused.
    public let enabled: Key
    /// `CMD.executing`: `true` while an execution runs, else `false`.
    public let executing: Key
    /// `CMD.error`: the last execution's error message, `null` after a success.
    public let error: Key

    /// The suffixes of the keys propd keeps for every command.
    public static let keptSuffixes = ["executing", "error"]

    /// - Throws: when `CMD.executing` would not be a valid key (the command's
    ///   name leaves no room for the suffix: too long, or 32 segments already).
    public init(_ command: Key) throws(KeySyntaxError) {
        self.command = command
        enabled = try Key(command.rawValue + ".enabled")
        executing = try Key(command.rawValue + ".executing")
        error = try Key(command.rawValue + ".error")
    }

    /// The command whose kept key (`executing` or `error`) `key` would be, if
    /// it has that shape: `login.submit.error` → `login.submit`.
    public static func command(keeping key: Key) -> Key? {
        guard let dot = key.rawValue.lastIndex(of: ".") else { return nil }
        let suffix = key.rawValue[key.rawValue.index(after: dot)...]
        guard keptSuffixes.contains(where: { $0 == suffix }) else { return nil }
        return try? Key(String(key.rawValue[..<dot]))
    }
}
