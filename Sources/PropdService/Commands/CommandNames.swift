import PropdCore

/// The commands the store knows (`schema/005_commands.sql`), as the writer
/// sees them: their `CMD.executing` and `CMD.error` are the daemon's, so
/// client writes to them are refused like writes to derived keys.
struct CommandNames {
    private(set) var names: Set<Key> = []

    init(_ names: some Sequence<Key> = []) {
        self.names = Set(names)
    }

    func contains(_ command: Key) -> Bool { names.contains(command) }

    mutating func insert(_ command: Key) { names.insert(command) }

    /// Whether `key` is a kept key (`CMD.executing`, `CMD.error`) of a known command.
    func keeps(_ key: Key) -> Bool {
        guard !names.isEmpty, let command = CommandKeys.command(keeping: key) else { return false }
        return names.contains(command)
    }
}

extension EngineState {
    /// Whether clients are refused writes to `key` with `KeyIsDerived`: a
    /// binding derives it, or propd keeps it for a command.
    func isDerived(_ key: Key) -> Bool {
        engine.isDerived(key) || commands.keeps(key)
    }
}
