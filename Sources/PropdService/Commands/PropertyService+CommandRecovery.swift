import Logging
import PropdCore
import PropdStore

extension PropertyService {
    /// What `CMD.error` says of an execution a restart interrupted.
    public static let restartedExecutionError = "the daemon restarted during the execution"

    /// The commands the store knows, for the writer's `CommandNames`.
    static func storedCommands(_ store: any PropertyStorage) throws(ServiceError) -> [Key] {
        do {
            return try store.commandNames()
        } catch {
            throw ServiceError(error)
        }
    }

    /// The commands of `names` whose `CMD.executing` is still `true`: open
    /// when the last run ended.
    static func openExecutions(of names: [Key], in store: any PropertyStorage) -> [CommandKeys] {
        names.compactMap { name in
            guard let keys = try? CommandKeys(name),
                let executing = try? store.get([keys.executing]).properties.first ?? nil,
                executing.value == .bool(true)
            else { return nil }
            return keys
        }
    }

    /// Ends, as failed, the executions the last run left open (`CMD.executing`
    /// still `true`): executions live in memory, so none survives a restart,
    /// and no command may stay executing forever. One revision for all.
    /// The daemon calls it once at start and awaits it before it serves, so
    /// no client reads an execution that is no longer running; it returns
    /// once that revision is committed, or refused (which is logged).
    public func endInterruptedExecutions() async {
        let interrupted = interruptedExecutions
        guard !interrupted.isEmpty else { return }
        let logger = self.logger
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            submit(
                { transaction, state in
                    for keys in interrupted {
                        try transaction.set(keys.executing, .bool(false))
                        try transaction.set(keys.error, .string(Self.restartedExecutionError))
                    }
                    try Self.propagate(&transaction, &state)
                }, rollback: .validatesFirst, from: .thread
            ) { result in
                switch result {
                case .success(let committed):
                    logger.notice(
                        "executions interrupted by the restart ended as failed",
                        metadata: [
                            "commands": "\(interrupted.map(\.command.rawValue))", "revision": "\(committed.revision)",
                        ])
                case .failure(let error):
                    logger.error("interrupted executions could not be ended", metadata: ["error": "\(error)"])
                }
                ended.resume()
            }
        }
    }
}
