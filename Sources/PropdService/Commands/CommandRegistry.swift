import PropdCore
import Synchronization

/// Arms the timeout of one execution: calls `fire` after `delay` unless the
/// returned closure disarms it first. The daemon schedules it on the
/// executor's event loop (no thread of its own is woken to start or cancel
/// it); ``PropertyService/taskTimer`` uses a task.
public typealias CommandTimer = @Sendable (_ delay: Duration, _ fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)

/// Identifies one handler: one `Serve` call, for as long as it streams.
public struct CommandHandlerID: Sendable, Hashable {
    let rawValue: UInt64
}

/// The handlers serving commands and the executions in flight, in memory
/// only: a restart ends every execution (see `PropertyService+CommandRecovery`).
///
/// Whether a command is *busy* is not kept here but read from `CMD.executing`
/// in the writer, so it follows the revisions exactly (a failed commit
/// leaves nothing to undo).
final class CommandRegistry: Sendable {
    /// An execution between its start and the commit of its end.
    struct Execution: Sendable {
        let invocation: Invocation
        let keys: CommandKeys
        let handler: CommandHandlerID
        let timeout: Duration
        let timer: CommandTimer
        /// Answers the `Execute` call, exactly once.
        let answer: @Sendable (Result<ExecutionResult, CommandError>) -> Void
        var phase: Phase = .starting
        /// The handler left before the start committed.
        var handlerLeft = false
        /// Disarms the armed timeout.
        var disarm: (@Sendable () -> Void)?
        /// Started on another node: its ending goes there, nothing is written here.
        var relayed: (@Sendable (ExecutionEnding) -> Void)?
    }

    enum Phase: Sendable {
        /// Its start revision is being written; the handler has not seen it.
        case starting
        /// The handler has it; Complete, the timeout or the handler's leaving ends it.
        case running
        /// Its end revision is being written; a second answer finds nothing.
        case finishing
    }

    /// What to do once an execution's start is committed.
    enum Dispatch: Sendable {
        case deliver(Invocation, to: @Sendable (Invocation) -> Void, timeout: Duration, timer: CommandTimer)
        case handlerLeft
    }

    private struct Handler {
        let commands: Set<Key>
        let deliver: @Sendable (Invocation) -> Void
        /// Executions assigned to it and not yet ended.
        var open = 0
    }

    private struct State {
        var nextHandler: UInt64 = 1
        var handlers: [CommandHandlerID: Handler] = [:]
        /// Handlers per command, oldest first.
        var serving: [Key: [CommandHandlerID]] = [:]
        /// Where the round robin of each command resumes.
        var turn: [Key: Int] = [:]
        var executions: [String: Execution] = [:]
        /// Commands whose keys are known to exist (a copy of the writer's
        /// `CommandNames`, read without waiting for the writer).
        var registered: Set<Key> = []
        /// Other nodes' handlers, in a cluster.
        var relay: (any CommandRelay)?
    }

    /// The handler standing for every other node's (the relay).
    static let relayHandler = CommandHandlerID(rawValue: 0)

    private let state = Mutex(State())

    // MARK: Commands

    func isRegistered(_ command: Key) -> Bool {
        state.withLock { $0.registered.contains(command) }
    }

    func markRegistered(_ commands: some Sequence<Key>) {
        state.withLock { $0.registered.formUnion(commands) }
    }

    // MARK: Handlers

    func setRelay(_ relay: any CommandRelay) {
        state.withLock { $0.relay = relay }
    }

    var relay: (any CommandRelay)? { state.withLock { $0.relay } }

    /// The commands this node's own handlers serve.
    var servedCommands: Set<Key> { state.withLock { Set($0.serving.keys) } }

    func addHandler(_ commands: [Key], deliver: @escaping @Sendable (Invocation) -> Void) -> CommandHandlerID {
        state.withLock { state in
            let id = CommandHandlerID(rawValue: state.nextHandler)
            state.nextHandler += 1
            state.handlers[id] = Handler(commands: Set(commands), deliver: deliver)
            for command in Set(commands) { state.serving[command, default: []].append(id) }
            return id
        }
    }

    /// Forgets the handler; returns the executions it was running, to end
    /// with `NoHandler`. Those still starting end once their start commits.
    func removeHandler(_ id: CommandHandlerID) -> [String] {
        state.withLock { state in
            guard let handler = state.handlers.removeValue(forKey: id) else { return [] }
            for command in handler.commands {
                state.serving[command]?.removeAll { $0 == id }
                if state.serving[command]?.isEmpty == true {
                    state.serving[command] = nil
                    state.turn[command] = nil
                }
            }
            var running: [String] = []
            for (execution, var entry) in state.executions where entry.handler == id {
                switch entry.phase {
                case .starting:
                    entry.handlerLeft = true
                    state.executions[execution] = entry
                case .running: running.append(execution)
                case .finishing: break
                }
            }
            return running
        }
    }

    // MARK: Executions

    /// Assigns a new execution to one handler of its command: the one with
    /// the fewest open executions, taking turns among equals; to another
    /// node's (the relay) when none here serves it. False when nobody
    /// serves the command.
    func assign(
        _ invocation: Invocation, keys: CommandKeys, timeout: Duration, timer: @escaping CommandTimer,
        answer: @escaping @Sendable (Result<ExecutionResult, CommandError>) -> Void
    ) -> Bool {
        state.withLock { state in
            let chosen: CommandHandlerID
            if let local = Self.pick(invocation.command, &state) {
                chosen = local
            } else if state.relay?.serves(invocation.command) == true {
                chosen = Self.relayHandler
            } else {
                return false
            }
            state.executions[invocation.id] = Execution(
                invocation: invocation, keys: keys, handler: chosen, timeout: timeout, timer: timer, answer: answer)
            return true
        }
    }

    /// Assigns an execution started on another node to one handler here;
    /// returns how to deliver it (nil when none serves the command now).
    func assignRelayed(
        _ invocation: Invocation, keys: CommandKeys, reply: @escaping @Sendable (ExecutionEnding) -> Void
    ) -> (@Sendable (Invocation) -> Void)? {
        state.withLock { state in
            guard let chosen = Self.pick(invocation.command, &state), let handler = state.handlers[chosen] else {
                return nil
            }
            var execution = Execution(
                invocation: invocation, keys: keys, handler: chosen, timeout: .zero, timer: { _, _ in {} },
                answer: { _ in })
            // Its start revision was written where it was executed.
            execution.phase = .running
            execution.relayed = reply
            state.executions[invocation.id] = execution
            return handler.deliver
        }
    }

    /// The local handler of `command` with the fewest open executions,
    /// taking turns among equals (counted as opened).
    private static func pick(_ command: Key, _ state: inout State) -> CommandHandlerID? {
        guard let candidates = state.serving[command], !candidates.isEmpty else { return nil }
        let start = state.turn[command, default: 0] % candidates.count
        var chosen = candidates[start]
        var fewest = Int.max
        for offset in 0..<candidates.count {
            let id = candidates[(start + offset) % candidates.count]
            let open = state.handlers[id]?.open ?? Int.max
            if open < fewest {
                fewest = open
                chosen = id
            }
        }
        state.turn[command] = start + 1
        state.handlers[chosen]?.open += 1
        return chosen
    }

    /// The start of `id` was committed: it is running from now on.
    func started(_ id: String) -> Dispatch? {
        state.withLock { state in
            guard var execution = state.executions[id], execution.phase == .starting else { return nil }
            execution.phase = .running
            state.executions[id] = execution
            if execution.handler == Self.relayHandler, let relay = state.relay {
                return .deliver(execution.invocation, to: relay.send, timeout: execution.timeout, timer: execution.timer)
            }
            guard !execution.handlerLeft, let handler = state.handlers[execution.handler] else { return .handlerLeft }
            return .deliver(execution.invocation, to: handler.deliver, timeout: execution.timeout, timer: execution.timer)
        }
    }

    /// Keeps how to disarm a running execution's timeout (disarmed at once if it ended meanwhile).
    func setDisarm(_ id: String, _ disarm: @escaping @Sendable () -> Void) {
        let stale = state.withLock { state -> Bool in
            guard state.executions[id]?.phase == .running else { return true }
            state.executions[id]?.disarm = disarm
            return false
        }
        if stale { disarm() }
    }

    /// The command of an open execution, for the access check of `Complete`.
    func command(of id: String) -> Key? {
        state.withLock { $0.executions[id]?.invocation.command }
    }

    /// Takes a running execution to end it: nil when it is unknown, still
    /// starting, or already ending (a second answer).
    func claim(_ id: String) -> Execution? {
        let claimed: Execution? = state.withLock { state in
            guard var execution = state.executions[id], execution.phase == .running else { return nil }
            execution.phase = .finishing
            state.executions[id] = execution
            return execution
        }
        claimed?.disarm?()
        return claimed
    }

    /// Forgets an execution started on another node that is still running here.
    func dropRelayed(_ id: String) {
        state.withLock { state in
            guard let execution = state.executions[id], execution.relayed != nil, execution.phase == .running else {
                return
            }
            state.executions[id] = nil
            state.handlers[execution.handler]?.open -= 1
        }
    }

    /// Forgets an execution whose start or end was committed (or refused).
    func remove(_ id: String) {
        state.withLock { state in
            guard let execution = state.executions.removeValue(forKey: id) else { return }
            state.handlers[execution.handler]?.open -= 1
        }
    }

    /// Disarms every timeout (the service is shutting down).
    func cancelTimers() {
        let disarms = state.withLock { $0.executions.values.compactMap(\.disarm) }
        for disarm in disarms { disarm() }
    }

    /// A new execution id: 128 random bits in hex, so that only the handler
    /// that was handed an invocation can name it.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return paddedHex(high) + paddedHex(low)
    }

    private static func paddedHex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
