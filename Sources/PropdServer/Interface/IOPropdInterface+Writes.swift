import PropdCore
import PropdService
import PropdVarlink
import PropdWire

extension IOPropdInterface {
    func set(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let parameters: SetParameters
        do {
            // More keys than allowed are refused before any is read.
            try checkKeyCount(try call.parameters.requiredObject("values").count)
            parameters = try SetParameters(call.parameters)
        } catch {
            return responder.fail(error)
        }
        set(parameters, connection, responder)
    }

    /// A `Set` read straight from its frame (see ``SetParameters``).
    func setDecodedDirectly(
        _ parameters: SetParameters, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder
    ) {
        do {
            try checkKeyCount(parameters.values.count)
        } catch {
            return responder.fail(error)
        }
        set(parameters, connection, responder)
    }

    /// A `Set` decoded either way, its keys counted: access, then the write.
    private func set(_ parameters: SetParameters, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        if access.restricts(connection.peer) {
            do {
                for key in parameters.values.keys { try access.require(.write, key, connection.peer) }
                for key in parameters.expect.keys { try access.require(.read, key, connection.peer) }
            } catch {
                return responder.fail(error)
            }
        }
        write(.set(parameters.values, expect: parameters.expect, ttl: parameters.ttl), connection, responder)
    }

    func delete(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let keys: [Key]
        let expect: [Key: Revision]
        var patterns: [KeyPattern] = []
        do {
            keys = try WireCoding.keys(call.parameters, "keys")
            try checkKeyCount(keys.count)
            for key in keys { try access.require(.write, key, connection.peer) }
            expect = try WireCoding.expectations(call.parameters)
            for key in expect.keys { try access.require(.read, key, connection.peer) }
            if call.parameters["patterns"] != nil, call.parameters["patterns"] != .null {
                for text in try call.parameters.requiredStringArray("patterns") {
                    patterns.append(try WireCoding.pattern(text))
                }
            }
        } catch {
            return responder.fail(error)
        }
        // Every key a pattern matches must be writable by the caller, checked
        // in the transaction that deletes them.
        let peer = connection.peer
        let access = self.access
        write(
            .delete(keys, expect: expect, patterns: patterns, writable: { access.allows(.write, $0, peer) }),
            connection, responder)
    }

    func bind(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let key: Key
        let expression: String
        let state: JSONValue?
        do {
            key = try WireCoding.key(try call.parameters.requiredString("key"))
            expression = try call.parameters.requiredString("expression")
            state = try call.parameters.optionalObject("state").map(JSONValue.object)
            try access.require(.write, key, connection.peer)
        } catch {
            return responder.fail(error)
        }
        let peer = connection.peer
        let access = self.access
        let authorize: @Sendable (BindingReach) throws(ServiceError) -> Void = { check throws(ServiceError) in
            // A binding may read only what its declarer may read; one that
            // follows keys named at run time may reach any key.
            for source in check.sources where !access.allows(.read, source, peer) {
                throw ServiceError.permissionDenied(source.rawValue)
            }
            if check.followsKeys, access.filtersReads(for: peer) {
                throw ServiceError.permissionDenied(KeyPattern.all.rawValue)
            }
        }
        write(.bind(key, expression: expression, state: state, authorize: authorize), connection, responder) { error in
            // A cycle may run through bindings of keys the caller may not read.
            guard case .bindingCycle(let keys) = error, access.filtersReads(for: peer) else { return error }
            return .bindingCycle(keys.map { text in
                (try? Key(text)).map { access.allows(.read, $0, peer) } ?? false ? text : ReadRedaction.hiddenKey
            })
        }
    }

    func unbind(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let key: Key
        do {
            key = try WireCoding.key(try call.parameters.requiredString("key"))
            try access.require(.write, key, connection.peer)
        } catch {
            return responder.fail(error)
        }
        write(.unbind(key), connection, responder)
    }

    /// Submits `operation` now, saying who writes (this connection's loop,
    /// and whether the call is alone on it); answers when it is durable (or
    /// refused). The connection handler keeps the client's order: a read
    /// starts only once the calls before it are answered.
    func write(
        _ operation: WriteOperation, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder,
        redact: @escaping @Sendable (ServiceError) -> ServiceError = { $0 }
    ) {
        // Not the operation itself: the completion keeps what it captures until the write is answered.
        let isBind = if case .bind = operation { true } else { false }
        service.submit(operation, from: .call(on: connection, responder)) { result in
            switch result {
            case .success(let outcome):
                if isBind {
                    responder.succeed(BindReply(revision: outcome.revision, sources: outcome.sources.map(\.rawValue)).parameters)
                } else {
                    responder.succeed(RevisionReply(revision: outcome.revision))
                }
            case .failure(let error):
                responder.fail(WireCoding.error(redact(error)))
            }
        }
    }
}
