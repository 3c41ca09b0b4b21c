import NIOCore
import PropdCore
import PropdService
import PropdVarlink
import PropdWire

/// `Execute`, `Serve` and `Complete` (CONTRACT 6.2): decode, check access,
/// hand to the service, encode.
extension IOPropdInterface {
    func execute(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let keys: CommandKeys
        let argument: JSONValue?
        let timeout: Duration
        do {
            keys = try WireCoding.commandKeys(try call.parameters.requiredString("command"))
            try access.require(.write, keys.command, connection.peer)
            argument = WireCoding.optionalValue(call.parameters, "argument")
            timeout = try WireCoding.commandTimeout(call.parameters)
        } catch {
            return responder.fail(error)
        }
        // A read sent after an Execute starts once it is answered (the
        // connection handler's order), so it sees the execution's end.
        service.execute(
            keys, argument: argument, timeout: timeout, timer: Self.timer(on: connection.eventLoop),
            from: .call(on: connection, responder)
        ) { result in
            switch result {
            case .success(let execution):
                responder.succeed(execution.parameters)
            case .failure(let error):
                responder.fail(WireCoding.error(error))
            }
        }
    }

    func serve(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ stream: VarlinkReplyStream) {
        var keys: [CommandKeys] = []
        do throws(VarlinkCallError) {
            let texts = try call.parameters.requiredStringArray("commands")
            guard !texts.isEmpty else { throw .invalidParameter("commands") }
            try checkKeyCount(texts.count)
            for text in texts {
                let command = try WireCoding.commandKeys(text)
                try access.require(.write, command.command, connection.peer)
                keys.append(command)
            }
        } catch {
            return stream.finish(throwing: error)
        }
        let handler = service.serve(
            keys,
            deliver: { invocation in stream.send(InvocationReply(invocation: invocation).parameters) },
            failed: { error in stream.finish(throwing: WireCoding.error(error)) })
        // The stream ends when its connection closes: the handler is gone.
        stream.onTermination { [service] in service.stopServing(handler) }
    }

    func complete(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let id: String
        let result: JSONValue?
        let error: String?
        do {
            id = try call.parameters.requiredString("id")
            result = WireCoding.optionalValue(call.parameters, "result")
            error = try call.parameters.optionalString("error")
            // A result and an error at once is a handler's bug: refused, so it can answer again.
            if error != nil, result != nil { throw VarlinkCallError.invalidParameter("error") }
        } catch {
            return responder.fail(error)
        }
        let peer = connection.peer
        let access = self.access
        service.complete(
            id, result: result, error: error, from: .call(on: connection, responder),
            authorize: { command throws(ServiceError) in
                guard access.allows(.write, command, peer) else { throw .permissionDenied(command.rawValue) }
            }
        ) { outcome in
            switch outcome {
            case .success: responder.succeed(EmptyReply().parameters)
            case .failure(let error): responder.fail(WireCoding.error(error))
            }
        }
    }
}

extension IOPropdInterface {
    /// An execution's timeout on the executor's event loop: arming it there
    /// wakes no other thread, and neither does disarming it from the loop
    /// that read the `Complete` (a scheduled callback is cancelled under the
    /// loop's lock, where `Scheduled.cancel()` would also fail a promise on
    /// its loop, waking it for nothing).
    static func timer(on eventLoop: any EventLoop) -> CommandTimer {
        { delay, fire in
            let (seconds, attoseconds) = delay.components
            let amount = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            do {
                let callback = try eventLoop.scheduleCallback(in: amount, handler: ExecutionTimeout(fire: fire))
                return { callback.cancel() }
            } catch {
                // The loop is shutting down (so is the daemon): a task keeps the deadline.
                return PropertyService.taskTimer(delay, fire)
            }
        }
    }
}

/// Ends an execution when its timeout passes.
private struct ExecutionTimeout: NIOScheduledCallbackHandler, Sendable {
    let fire: @Sendable () -> Void

    func handleScheduledCallback(eventLoop: some EventLoop) {
        fire()
    }
}

extension WireCoding {
    /// A command's name: a key with room for the keys propd keeps for it.
    static func commandKeys(_ text: String) throws(VarlinkCallError) -> CommandKeys {
        let command = try key(text)
        do {
            return try CommandKeys(command)
        } catch {
            throw VarlinkCallError(
                IOPropdError.invalidKey(key: text, reason: "a command's key \(text).executing \(error.description)"))
        }
    }

    /// An untyped `?object` parameter; absent and `null` are the same.
    static func optionalValue(_ parameters: [String: JSONValue], _ name: String) -> JSONValue? {
        guard let value = parameters[name], value != .null else { return nil }
        return value
    }

    /// `timeout: ?int` in milliseconds, 1 to 2^31; 30,000 when absent.
    static func commandTimeout(_ parameters: [String: JSONValue]) throws(VarlinkCallError) -> Duration {
        guard let milliseconds = try parameters.optionalInteger("timeout") else {
            return PropertyService.defaultCommandTimeout
        }
        guard (1...(Int64(1) << 31)).contains(milliseconds) else { throw .invalidParameter("timeout") }
        return .milliseconds(milliseconds)
    }

    /// The contract's error for a command failure.
    static func error(_ error: CommandError) -> VarlinkCallError {
        switch error {
        case .disabled(let command): return VarlinkCallError(.commandDisabled(command: command.rawValue))
        case .busy(let command): return VarlinkCallError(.commandBusy(command: command.rawValue))
        case .noHandler(let command): return VarlinkCallError(.noHandler(command: command.rawValue))
        case .failed(let command, let message):
            return VarlinkCallError(.commandFailed(command: command.rawValue, message: message))
        case .timeout(let command): return VarlinkCallError(.commandTimeout(command: command.rawValue))
        case .noSuchInvocation(let id): return VarlinkCallError(.noSuchInvocation(id: id))
        case .service(let error): return Self.error(error)
        }
    }
}
