/// Each io.propd error in plain words, with its parameters: what `propctl`
/// prints after the error's name.
///
/// ```swift
/// IOPropdError.revisionMismatch(key: "room.temp", expected: 4, actual: 7).description
/// // "revision mismatch on room.temp: expected 4, found 7"
/// ```
extension IOPropdError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noSuchKey(let key): return "no such key \(key)"
        case .invalidKey(let key, let reason): return "invalid key \(String(reflecting: key)): \(reason)"
        case .invalidPattern(let pattern, let reason): return "invalid pattern \(String(reflecting: pattern)): \(reason)"
        case .revisionMismatch(let key, let expected, let actual):
            return "revision mismatch on \(key): expected \(expected), found \(actual)"
        case .keyIsDerived(let key): return "\(key) is derived by a binding and cannot be written (unbind it first)"
        case .bindingInvalid(let message, let line, let column):
            // The parser's messages often end with the position already.
            return message.contains("\(line):\(column)") ? "invalid binding: \(message)"
                : "invalid binding at \(line):\(column): \(message)"
        case .bindingCycle(let keys):
            return "binding would create a cycle: " + (keys + keys.prefix(1)).joined(separator: " -> ")
        case .revisionCompacted(let since, let oldest):
            return "history after revision \(since) is no longer kept; the oldest revision available is \(oldest)"
        case .slowConsumer(let revision):
            return "the subscription fell too far behind and was ended after revision \(revision)"
        case .permissionDenied(let key): return "permission denied on \(key)"
        case .limitExceeded(let limit, let maximum): return "limit \(limit) exceeded (maximum \(maximum))"
        case .storageFailure(let message): return "the daemon could not store the change: \(message)"
        case .commandDisabled(let command): return "command \(command) is disabled (\(command).enabled is not true)"
        case .commandBusy(let command): return "command \(command) is already executing"
        case .noHandler(let command): return "no handler serves command \(command)"
        case .commandFailed(let command, let message): return "command \(command) failed: \(message)"
        case .commandTimeout(let command): return "command \(command) got no answer in time"
        case .noSuchInvocation(let id): return "no open invocation \(id) (unknown, or already answered)"
        }
    }
}
