public import PropdCore
public import PropdStore

/// How an execution ended, and what that writes to `CMD.error`.
public enum ExecutionEnding: Sendable, Hashable {
    case completed(JSONValue?)
    case failed(String)
    case timedOut(Duration)
    case handlerLeft

    /// The text of `CMD.error` (nil: `null`, a success).
    var errorText: String? {
        switch self {
        case .completed: return nil
        case .failed(let message): return message
        case .timedOut(let timeout):
            let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            return "timeout after \(milliseconds)ms"
        case .handlerLeft: return "no handler: the handler disconnected during the execution"
        }
    }

    func outcome(_ command: Key, revision: Revision) -> Result<ExecutionResult, CommandError> {
        switch self {
        case .completed(let result): return .success(ExecutionResult(result: result, revision: revision))
        case .failed(let message): return .failure(.failed(command: command, message: message))
        case .timedOut: return .failure(.timeout(command: command))
        case .handlerLeft: return .failure(.noHandler(command: command))
        }
    }
}

/// A registration body that found nothing new to write (a concurrent one
/// did it first): success, without consuming a revision.
private struct AlreadyRegistered: Error {}

extension PropertyService {
    /// The contract's default timeout of an execution: 30 s.
    public static let defaultCommandTimeout: Duration = .milliseconds(30_000)

    /// A timeout as a task that sleeps (for callers without an event loop).
    public static let taskTimer: CommandTimer = { delay, fire in
        let task = Task {
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
            fire()
        }
        return { task.cancel() }
    }

    /// `Execute`: starts an execution of `keys.command` on one of its handlers
    /// and calls `completion` with its end.
    ///
    /// Starting writes `CMD.executing = true` and `CMD.error = null` as one
    /// revision; ending writes `CMD.executing = false` and `CMD.error` as one
    /// revision, which a success answers. Refused before anything starts:
    /// `disabled` (`CMD.enabled` exists and is not `true`), `busy`,
    /// `noHandler`. The first Execute or Serve of a command creates its keys.
    ///
    /// ```swift
    /// service.execute(try CommandKeys(Key("login.submit")), argument: ["user": "ada"], timeout: .seconds(10)) { result in
    ///     print(result)   // .success(ExecutionResult(result: true, revision: 42))
    /// }
    /// ```
    ///
    /// - Parameter timer: arms the timeout (``taskTimer`` unless the caller has a better clock).
    /// - Parameter origin: who is executing (see ``submit(_:from:completion:)``).
    public func execute(
        _ keys: CommandKeys, argument: JSONValue?, timeout: Duration = PropertyService.defaultCommandTimeout,
        timer: @escaping CommandTimer = PropertyService.taskTimer, from origin: WriteOrigin = .thread,
        completion: @escaping @Sendable (Result<ExecutionResult, CommandError>) -> Void
    ) {
        if commands.isRegistered(keys.command) {
            return start(keys, argument: argument, timeout: timeout, timer: timer, from: origin, completion: completion)
        }
        registerCommands([keys]) { [self] registered in
            if case .failure(let error) = registered { return completion(.failure(error)) }
            start(keys, argument: argument, timeout: timeout, timer: timer, from: .thread, completion: completion)
        }
    }

    /// ``execute(_:argument:timeout:completion:)`` awaited.
    public func execute(
        _ keys: CommandKeys, argument: JSONValue?, timeout: Duration = PropertyService.defaultCommandTimeout
    ) async throws(CommandError) -> ExecutionResult {
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<ExecutionResult, CommandError>, Never>) in
            // Unsafe continuation: `execute` calls its completion exactly once.
            execute(keys, argument: argument, timeout: timeout) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// `Serve`: makes `deliver` a handler of the commands from now on, and
    /// creates the keys of those that are new. Each invocation goes to
    /// exactly one handler; call ``stopServing(_:)`` when the handler goes
    /// (its running executions then end with `NoHandler`).
    ///
    /// - Parameter failed: called instead when the commands cannot be
    ///   registered (e.g. `CMD.executing` is bound by a binding); the handler
    ///   is removed then.
    public func serve(
        _ keys: [CommandKeys], deliver: @escaping @Sendable (Invocation) -> Void,
        failed: @escaping @Sendable (CommandError) -> Void
    ) -> CommandHandlerID {
        let handler = commands.addHandler(keys.map(\.command), deliver: deliver)
        commands.relay?.announce(commands.servedCommands)
        registerCommands(keys) { [self] registered in
            if case .failure(let error) = registered {
                stopServing(handler)
                failed(error)
            }
        }
        return handler
    }

    /// The handler is gone: its running executions end with `NoHandler`.
    public func stopServing(_ handler: CommandHandlerID) {
        let running = commands.removeHandler(handler)
        commands.relay?.announce(commands.servedCommands)
        for id in running { finish(id, .handlerLeft) }
    }

    /// `Complete`: ends execution `id` with the handler's `result`, or with
    /// its `error` when that is given; `completion` runs once the end
    /// revision is committed.
    ///
    /// - Parameter authorize: sees the execution's command before anything
    ///   happens, and may refuse (write access to `CMD`).
    /// - Parameter origin: as for ``execute(_:argument:timeout:timer:from:completion:)``.
    public func complete(
        _ id: String, result: JSONValue?, error: String?, from origin: WriteOrigin = .thread,
        authorize: (Key) throws(ServiceError) -> Void,
        completion: @escaping @Sendable (Result<Revision, CommandError>) -> Void
    ) {
        guard let command = commands.command(of: id) else { return completion(.failure(.noSuchInvocation(id: id))) }
        do {
            try authorize(command)
        } catch {
            return completion(.failure(.service(error)))
        }
        let ending: ExecutionEnding = error.map { .failed($0) } ?? .completed(result)
        if !finish(id, ending, from: origin, answered: completion) {
            completion(.failure(.noSuchInvocation(id: id)))
        }
    }

    // MARK: Steps

    /// Creates the kept keys of the commands not registered yet, as one
    /// revision (none when every command is known).
    func registerCommands(_ keys: [CommandKeys], completion: @escaping @Sendable (Result<Void, CommandError>) -> Void) {
        let new = keys.filter { !commands.isRegistered($0.command) }
        if new.isEmpty { return completion(.success(())) }
        let registry = commands
        submit(
            { transaction, state in
                let fresh = new.filter { !state.commands.contains($0.command) }
                if fresh.isEmpty { throw AlreadyRegistered() }
                for keys in fresh {
                    for key in [keys.executing, keys.error] where state.engine.isDerived(key) {
                        throw ServiceError.keyIsDerived(key.rawValue)
                    }
                }
                state.changed(at: transaction.revision)
                for keys in fresh {
                    try transaction.registerCommand(keys.command)
                    state.commands.insert(keys.command)
                    if try transaction.property(keys.executing)?.value != .bool(false) {
                        try transaction.set(keys.executing, .bool(false))
                    }
                    let error = try transaction.property(keys.error)
                    if error == nil || error?.value != .null { try transaction.set(keys.error, .null) }
                }
                try Self.propagate(&transaction, &state)
            }, rollback: .validatesFirst, from: .thread
        ) { result in
            switch result {
            case .success:
                registry.markRegistered(new.map(\.command))
                completion(.success(()))
            case .failure(let error) where error is AlreadyRegistered:
                registry.markRegistered(new.map(\.command))
                completion(.success(()))
            case .failure(let error):
                completion(.failure(.from(error)))
            }
        }
    }

    private func start(
        _ keys: CommandKeys, argument: JSONValue?, timeout: Duration, timer: @escaping CommandTimer, from origin: WriteOrigin,
        completion: @escaping @Sendable (Result<ExecutionResult, CommandError>) -> Void
    ) {
        let invocation = Invocation(id: CommandRegistry.newID(), command: keys.command, argument: argument)
        let registry = commands
        submit(
            { transaction, state in
                if let enabled = try transaction.property(keys.enabled), enabled.value != .bool(true) {
                    throw CommandError.disabled(command: keys.command)
                }
                if try transaction.property(keys.executing)?.value == .bool(true) {
                    throw CommandError.busy(command: keys.command)
                }
                guard registry.assign(invocation, keys: keys, timeout: timeout, timer: timer, answer: completion) else {
                    throw CommandError.noHandler(command: keys.command)
                }
                try transaction.set(keys.executing, .bool(true))
                try transaction.set(keys.error, .null)
                try Self.propagate(&transaction, &state)
            }, rollback: .validatesFirst, from: origin
        ) { [weak self] result in
            switch result {
            case .success: self?.dispatch(invocation.id)
            case .failure(let error):
                registry.remove(invocation.id)
                completion(.failure(.from(error)))
            }
        }
    }

    /// Hands a started execution to its handler and arms its timeout.
    private func dispatch(_ id: String) {
        switch commands.started(id) {
        case .deliver(let invocation, let deliver, let timeout, let timer):
            // Delivered before its timeout is armed: a timeout firing first
            // would end an execution the relay had not sent yet, which it
            // would then send and remember. One timer per execution; its end
            // disarms it (at once if it ended already). Not persisted: a
            // restart ends every execution anyway.
            deliver(invocation)
            let disarm = timer(timeout) { [weak self] in self?.finish(id, .timedOut(timeout)) }
            commands.setDisarm(id, disarm)
        case .handlerLeft:
            finish(id, .handlerLeft)
        case nil:
            return
        }
    }

    /// Ends a running execution: writes its end revision, then answers its
    /// `Execute` (and `answered`, a `Complete`). False when it is not running
    /// (unknown, or ending already).
    @discardableResult
    func finish(
        _ id: String, _ ending: ExecutionEnding, from origin: WriteOrigin = .thread,
        answered: (@Sendable (Result<Revision, CommandError>) -> Void)? = nil
    ) -> Bool {
        guard let execution = commands.claim(id) else { return false }
        if let relayed = execution.relayed {
            // Started on another node, which writes its end.
            commands.remove(id)
            relayed(ending)
            answered?(.success(store.revision))
            return true
        }
        if execution.handler == CommandRegistry.relayHandler { commands.relay?.ended(id) }
        let keys = execution.keys
        let error = ending.errorText
        let registry = commands
        submit(
            { transaction, state in
                try transaction.set(keys.executing, .bool(false))
                try transaction.set(keys.error, error.map { .string($0) } ?? .null)
                try Self.propagate(&transaction, &state)
            }, rollback: .validatesFirst, from: origin
        ) { result in
            registry.remove(id)
            switch result {
            case .success(let committed):
                execution.answer(ending.outcome(keys.command, revision: committed.revision))
                answered?(.success(committed.revision))
            case .failure(let error):
                let failure = CommandError.from(error)
                execution.answer(.failure(failure))
                answered?(.failure(failure))
            }
        }
        return true
    }
}
