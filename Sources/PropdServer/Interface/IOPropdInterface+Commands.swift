import NIOCore
import PropdCore
import PropdService
import PropdVarlink

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
        // In the connection's order: a read sent after an Execute sees its end.
        let eventLoop = connection.eventLoop
        order.run(.write, on: connection.id) { [service, tickCommit] done, alone in
            // Committed at the end of the loop's tick when it can be, as a lone Set is.
            let tick = eventLoop.inEventLoop && alone ? tickCommit : nil
            defer { tick?.schedule(on: eventLoop) }
            service.execute(
                keys, argument: argument, timeout: timeout, timer: Self.timer(on: eventLoop), deferred: tick != nil
            ) { result in
                switch result {
                case .success(let execution):
                    var reply: [String: JSONValue] = ["revision": .integer(execution.revision.rawValue)]
                    if let value = execution.result { reply["result"] = value }
                    responder.succeed(reply)
                case .failure(let error):
                    responder.fail(WireCoding.error(error))
                }
                done()
            }
        }
    }

    func serve(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ stream: VarlinkReplyStream) {
        var keys: [CommandKeys] = []
        do throws(VarlinkCallError) {
            let texts = try call.parameters.requiredStringArray("commands")
            guard !texts.isEmpty else { throw .invalidParameter("commands") }
            try checkCount(texts.count, "max-keys-per-call", limits.keysPerCall)
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
            deliver: { invocation in stream.send(["invocation": WireCoding.encode(invocation)]) },
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
        let eventLoop = connection.eventLoop
        order.run(.write, on: connection.id) { [service, tickCommit] done, alone in
            let tick = eventLoop.inEventLoop && alone ? tickCommit : nil
            defer { tick?.schedule(on: eventLoop) }
            service.complete(
                id, result: result, error: error, deferred: tick != nil,
                authorize: { command throws(ServiceError) in
                    guard access.allows(.write, command, peer) else { throw .permissionDenied(command.rawValue) }
                }
            ) { outcome in
                switch outcome {
                case .success: responder.succeed([:])
                case .failure(let error): responder.fail(WireCoding.error(error))
                }
                done()
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
                name: prefix + "InvalidKey",
                parameters: [
                    "key": .string(text),
                    "reason": .string("a command's key \(text).executing \(error.description)"),
                ])
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

    static func encode(_ invocation: Invocation) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(invocation.id), "command": .string(invocation.command.rawValue)]
        if let argument = invocation.argument { object["argument"] = argument }
        return .object(object)
    }

    /// The contract's error for a command failure.
    static func error(_ error: CommandError) -> VarlinkCallError {
        func named(_ name: String, _ parameters: [String: JSONValue]) -> VarlinkCallError {
            VarlinkCallError(name: prefix + name, parameters: parameters)
        }
        switch error {
        case .disabled(let command): return named("CommandDisabled", ["command": .string(command.rawValue)])
        case .busy(let command): return named("CommandBusy", ["command": .string(command.rawValue)])
        case .noHandler(let command): return named("NoHandler", ["command": .string(command.rawValue)])
        case .failed(let command, let message):
            return named("CommandFailed", ["command": .string(command.rawValue), "message": .string(message)])
        case .timeout(let command): return named("CommandTimeout", ["command": .string(command.rawValue)])
        case .noSuchInvocation(let id): return named("NoSuchInvocation", ["id": .string(id)])
        case .service(let error): return Self.error(error)
        }
    }
}
