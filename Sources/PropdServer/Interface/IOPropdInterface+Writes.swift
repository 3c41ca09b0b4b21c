import PropdCore
import PropdService
import PropdVarlink

extension IOPropdInterface {
    func set(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let values: [Key: JSONValue]
        let expect: [Key: Revision]
        do {
            let object = try call.parameters.requiredObject("values")
            try checkCount(object.count, "keys", limits.keysPerCall)
            var decoded: [Key: JSONValue] = [:]
            decoded.reserveCapacity(object.count)
            for (text, value) in object {
                let key = try WireCoding.key(text)
                try access.require(.write, key, connection.peer)
                decoded[key] = value
            }
            values = decoded
            expect = try WireCoding.expectations(call.parameters)
            for key in expect.keys { try access.require(.read, key, connection.peer) }
        } catch {
            return responder.fail(error)
        }
        answer(responder) { () async throws(ServiceError) in
            ["revision": .integer(try await service.set(values, expect: expect).rawValue)]
        }
    }

    func delete(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let keys: [Key]
        let expect: [Key: Revision]
        do {
            keys = try WireCoding.keys(call.parameters, "keys")
            try checkCount(keys.count, "keys", limits.keysPerCall)
            for key in keys { try access.require(.write, key, connection.peer) }
            expect = try WireCoding.expectations(call.parameters)
            for key in expect.keys { try access.require(.read, key, connection.peer) }
        } catch {
            return responder.fail(error)
        }
        answer(responder) { () async throws(ServiceError) in
            ["revision": .integer(try await service.delete(keys, expect: expect).rawValue)]
        }
    }

    func bind(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        let key: Key
        let expression: String
        do {
            key = try WireCoding.key(try call.parameters.requiredString("key"))
            expression = try call.parameters.requiredString("expression")
            try access.require(.write, key, connection.peer)
        } catch {
            return responder.fail(error)
        }
        let peer = connection.peer
        let access = self.access
        answer(responder) { () async throws(ServiceError) in
            let (revision, sources) = try await service.bind(key, expression: expression) { sources throws(ServiceError) in
                // A binding may read only what its declarer may read.
                for source in sources where !access.allows(.read, source, peer) {
                    throw ServiceError.permissionDenied(source.rawValue)
                }
            }
            return ["revision": .integer(revision.rawValue), "sources": .array(sources.map { .string($0.rawValue) })]
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
        answer(responder) { () async throws(ServiceError) in
            ["revision": .integer(try await service.unbind(key).rawValue)]
        }
    }

    /// Answers with what an async service call returns, or its contract error.
    func answer(
        _ responder: VarlinkResponder,
        _ body: @escaping @Sendable () async throws(ServiceError) -> [String: JSONValue]
    ) {
        Task {
            do throws(ServiceError) {
                responder.succeed(try await body())
            } catch {
                responder.fail(WireCoding.error(error))
            }
        }
    }
}
