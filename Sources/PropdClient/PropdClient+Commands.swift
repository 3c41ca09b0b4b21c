public import PropdCore
import NIOCore
import PropdVarlink
import PropdWire

/// What a command handler throws to answer an invocation with this exact
/// message (any other error is answered with its description).
public struct CommandHandlerFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension PropdClient {
    /// Executes `command` (CONTRACT 6.2) and waits for its handler's result.
    ///
    /// ```swift
    /// let answer = try await client.execute("login.submit", argument: ["user": "ada"], timeout: .seconds(10))
    /// print(answer.result ?? "null", "at revision", answer.revision)
    /// ```
    ///
    /// - Parameter timeout: how long the handler may take (the daemon's
    ///   default, 30 s, when nil); whole milliseconds.
    /// - Throws: `refused` with `commandDisabled`, `commandBusy`, `noHandler`,
    ///   `commandFailed(command:message:)` or `commandTimeout`, and the
    ///   errors every call may meet.
    ///
    /// > Tip: replies on one connection come in call order, so calls made
    /// > on this client after an `execute` wait for it to end; use another
    /// > client for work that must not wait.
    public func execute(_ command: String, argument: JSONValue? = nil, timeout: Duration? = nil)
        async throws(PropdClientError) -> ExecutionResult
    {
        let milliseconds = timeout.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 }
        return try await call(.execute(command: command, argument: argument, timeout: milliseconds))
    }

    /// Serves `commands` until the calling task is cancelled: each invocation
    /// the daemon hands this handler runs `handler`, whose return value is
    /// the result and whose thrown error is the failure (its message is a
    /// ``CommandHandlerFailure``'s `message`, else the error's description).
    ///
    /// ```swift
    /// try await client.serve(["login.submit"]) { invocation in
    ///     guard case .string(let password)? = invocation.argument?["password"], password.count > 5 else {
    ///         throw CommandHandlerFailure("password too short")
    ///     }
    ///     return ["welcome": true]
    /// }
    /// ```
    ///
    /// Opens two connections of its own, on one event loop: one carries the
    /// `Serve` stream, the other the answers (a stream owns its connection).
    /// With `parallel` 1 each invocation is handled and answered in the
    /// calling task, one after the other.
    ///
    /// - Parameter parallel: invocations run at once (one at a time by
    ///   default); further ones wait here, their timeout running.
    /// - Throws: the daemon's refusal (`refused(.permissionDenied(key:))`,
    ///   `refused(.invalidKey(…))`…), or `connectionClosed` when the daemon
    ///   goes away (a restart ends the stream: serve again once it is back).
    public func serve(
        _ commands: [String], parallel: Int = 1,
        handler: @escaping @Sendable (Invocation) async throws -> JSONValue?
    ) async throws(PropdClientError) {
        let socketPath = self.socketPath
        let stream: VarlinkConnection
        do {
            stream = try await VarlinkConnection.connect(to: socketPath)
        } catch {
            throw PropdClientError.from(error, path: socketPath)
        }
        let answers = InvocationAnswers(socketPath: socketPath, eventLoop: stream.eventLoop)
        let replies = stream.stream(IOPropdMethod.serve.qualifiedName, IOPropdCall.serve(commands: commands).parameters)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var running = 0
                for try await reply in replies {
                    let invocation: Invocation
                    do throws(WireShapeError) {
                        invocation = try InvocationReply(parameters: reply).invocation
                    } catch {
                        throw PropdClientError.malformedReply(error.message)
                    }
                    if parallel <= 1 {
                        try await answers.answer(invocation, handler: handler)
                        continue
                    }
                    if running >= parallel {
                        try await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask { try await answers.answer(invocation, handler: handler) }
                }
                if !Task.isCancelled {
                    throw PropdClientError.connectionClosed(path: socketPath, reason: "the daemon ended the Serve stream")
                }
            }
        } catch {
            await stream.close()
            await answers.close()
            if Task.isCancelled { return }
            throw PropdClientError.from(error, path: socketPath)
        }
        await stream.close()
        await answers.close()
    }
}

/// The connection a handler answers on, opened on the `Serve` stream's
/// event loop (one loop thread reads both the invocations and the replies
/// to their `Complete`), and again when the daemon closed it (after an
/// answer too large for its message limit).
actor InvocationAnswers {
    let socketPath: String
    let eventLoop: any EventLoop
    private var connection: VarlinkConnection?

    init(socketPath: String, eventLoop: any EventLoop) {
        self.socketPath = socketPath
        self.eventLoop = eventLoop
    }

    /// Runs `handler` on the invocation and sends its outcome with `Complete`.
    nonisolated func answer(
        _ invocation: Invocation, handler: @escaping @Sendable (Invocation) async throws -> JSONValue?
    ) async throws(PropdClientError) {
        let outcome: Result<JSONValue?, any Error>
        do {
            outcome = .success(try await handler(invocation))
        } catch {
            outcome = .failure(error)
        }
        let id = invocation.id
        switch outcome {
        case .success(let result): try await complete(id, result: result, error: nil)
        case .failure(let failure as CommandHandlerFailure): try await complete(id, result: nil, error: failure.message)
        case .failure(let failure): try await complete(id, result: nil, error: String(describing: failure))
        }
    }

    /// Sends `Complete`. An answer over the daemon's message limit costs the
    /// connection; the invocation is then failed with a message saying so,
    /// on a new one, so that its caller is not left waiting for the timeout.
    /// A connection closed under other answers is opened again for them (an
    /// answer the daemon took already is then `NoSuchInvocation`: done).
    func complete(_ id: String, result: JSONValue?, error: String?) async throws(PropdClientError) {
        var answer = IOPropdCall.complete(id: id, result: result, error: error)
        for attempt in 0..<3 {
            do {
                _ = try await open().call(answer.method.qualifiedName, answer.parameters)
                return
            } catch {
                let failure = PropdClientError.from(error, path: socketPath)
                switch failure {
                case .refused(.noSuchInvocation):
                    // Answered too late (timed out, or ended otherwise): nothing waits for it.
                    return
                case .refused(.limitExceeded(let limit, let maximum)) where limit == "max-message-bytes":
                    connection = nil
                    answer = .complete(
                        id: id, result: nil, error: "the answer exceeds the daemon's message limit (\(limit) = \(maximum) bytes)")
                case .connectionClosed where attempt == 0:
                    connection = nil
                default:
                    throw failure
                }
            }
        }
    }

    func close() async {
        await connection?.close()
        connection = nil
    }

    private func open() async throws(PropdClientError) -> VarlinkConnection {
        if let connection, connection.isOpen { return connection }
        do {
            let opened = try await VarlinkConnection.connect(to: socketPath, eventLoopGroup: eventLoop)
            connection = opened
            return opened
        } catch {
            throw PropdClientError.from(error, path: socketPath)
        }
    }
}
