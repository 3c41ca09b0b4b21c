public import PropdCore

/// Why `Execute`, `Serve` or `Complete` failed, in the contract's terms
/// (CONTRACT 6.2): each case maps to one `io.propd` error.
public enum CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `CommandDisabled(command)`: `CMD.enabled` exists and is not `true`.
    case disabled(command: Key)
    /// `CommandBusy(command)`: an execution of the command is running.
    case busy(command: Key)
    /// `NoHandler(command)`: nobody serves the command, or its handler left mid-execution.
    case noHandler(command: Key)
    /// `CommandFailed(command, message)`: the handler answered with an error.
    case failed(command: Key, message: String)
    /// `CommandTimeout(command)`: no answer within the execution's timeout.
    case timeout(command: Key)
    /// `NoSuchInvocation(id)`: unknown, or already answered.
    case noSuchInvocation(id: String)
    /// A failure of the write underneath (`KeyIsDerived`, a storage failure).
    case service(ServiceError)

    public var description: String {
        switch self {
        case .disabled(let command): return "command \(command) is disabled (\(command).enabled is not true)"
        case .busy(let command): return "command \(command) is already executing"
        case .noHandler(let command): return "no handler serves command \(command)"
        case .failed(let command, let message): return "command \(command) failed: \(message)"
        case .timeout(let command): return "command \(command) timed out"
        case .noSuchInvocation(let id): return "no open invocation \(id)"
        case .service(let error): return error.description
        }
    }

    static func from(_ error: any Error) -> CommandError {
        if let error = error as? CommandError { return error }
        return .service(ServiceError.from(error))
    }
}
