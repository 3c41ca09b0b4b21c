import PropdCore
import PropdService
import PropdVarlink

/// io.propd's parameters and types on the wire: decoding with the
/// contract's errors, encoding as the IDL declares.
enum WireCoding {
    static let prefix = "io.propd."

    // MARK: Decoding

    static func key(_ text: String) throws(VarlinkCallError) -> Key {
        do {
            return try Key(text)
        } catch {
            throw VarlinkCallError(
                name: prefix + "InvalidKey", parameters: ["key": .string(text), "reason": .string(error.description)])
        }
    }

    static func pattern(_ text: String) throws(VarlinkCallError) -> KeyPattern {
        do {
            return try KeyPattern(text)
        } catch {
            throw VarlinkCallError(
                name: prefix + "InvalidPattern",
                parameters: ["pattern": .string(text), "reason": .string(error.description)])
        }
    }

    static func keys(_ parameters: [String: JSONValue], _ name: String) throws(VarlinkCallError) -> [Key] {
        var keys: [Key] = []
        for text in try parameters.requiredStringArray(name) { keys.append(try key(text)) }
        return keys
    }

    /// `expect: ?[string]int`; revisions are never negative.
    static func expectations(_ parameters: [String: JSONValue]) throws(VarlinkCallError) -> [Key: Revision] {
        guard let object = try parameters.optionalObject("expect") else { return [:] }
        var expect: [Key: Revision] = [:]
        for (text, value) in object {
            let revision: Int64
            switch value {
            case .integer(let i) where i >= 0: revision = i
            case .double(let d) where d >= 0:
                guard case .integer(let i) = JSONValue.number(d) else { throw .invalidParameter("expect") }
                revision = i
            default: throw .invalidParameter("expect")
            }
            expect[try key(text)] = Revision(revision)
        }
        return expect
    }

    static func nonNegative(_ parameters: [String: JSONValue], _ name: String) throws(VarlinkCallError) -> Int64? {
        guard let value = try parameters.optionalInteger(name) else { return nil }
        guard value >= 0 else { throw .invalidParameter(name) }
        return value
    }

    /// `ttl: ?int` of `Set`: milliseconds, 1 to 2^31.
    static func timeToLive(_ parameters: [String: JSONValue]) throws(VarlinkCallError) -> Int64? {
        guard let ttl = try parameters.optionalInteger("ttl") else { return nil }
        guard (1...(Int64(1) << 31)).contains(ttl) else { throw .invalidParameter("ttl") }
        return ttl
    }

    // MARK: Encoding

    static func encode(_ property: Property) -> JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(property.key.rawValue),
            "revision": .integer(property.revision.rawValue),
            "created": .integer(property.created.rawValue),
        ]
        if let value = property.value { object["value"] = value }
        if let binding = property.binding { object["binding"] = .string(binding) }
        if let error = property.error { object["error"] = .string(error) }
        if let expires = property.expires { object["expires"] = .integer(expires) }
        return .object(object)
    }

    static func encode(_ event: Event) -> JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(event.key),
            "kind": .string(event.kind.rawValue),
            "revision": .integer(event.revision.rawValue),
        ]
        if let value = event.value { object["value"] = value }
        if let error = event.error { object["error"] = .string(error) }
        return .object(object)
    }

    static func encode(_ binding: BindingDescription) -> JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(binding.key.rawValue),
            "expression": .string(binding.expression),
            "sources": .array(binding.sources.map { .string($0.rawValue) }),
        ]
        if let error = binding.error { object["error"] = .string(error) }
        if let state = binding.state { object["state"] = state }
        return .object(object)
    }

    // MARK: Errors

    /// The contract's error for a service failure.
    static func error(_ error: ServiceError) -> VarlinkCallError {
        switch error {
        case .noSuchKey(let key):
            return VarlinkCallError(name: prefix + "NoSuchKey", parameters: ["key": .string(key)])
        case .revisionMismatch(let key, let expected, let actual):
            return VarlinkCallError(
                name: prefix + "RevisionMismatch",
                parameters: [
                    "key": .string(key), "expected": .integer(expected.rawValue), "actual": .integer(actual.rawValue),
                ])
        case .keyIsDerived(let key):
            return VarlinkCallError(name: prefix + "KeyIsDerived", parameters: ["key": .string(key)])
        case .bindingInvalid(let message, let line, let column):
            return VarlinkCallError(
                name: prefix + "BindingInvalid",
                parameters: [
                    "message": .string(message), "line": .integer(Int64(line)), "column": .integer(Int64(column)),
                ])
        case .bindingCycle(let keys):
            return VarlinkCallError(
                name: prefix + "BindingCycle", parameters: ["cycle": .array(keys.map { .string($0) })])
        case .revisionCompacted(let since, let oldest):
            return revisionCompacted(since: since, oldest: oldest)
        case .permissionDenied(let key):
            return permissionDenied(key)
        case .revisionAhead(let revision, let current):
            return VarlinkCallError(
                name: "org.varlink.service.InvalidParameter",
                parameters: [
                    "parameter": "revision",
                    "reason": .string("revision \(revision) is beyond the newest revision \(current)"),
                ])
        case .storage(let storeError):
            // Not a contract error: the store failed and wrote nothing. The
            // message says what happened (disk full, I/O error).
            return VarlinkCallError(
                name: prefix + "StorageFailure", parameters: ["message": .string(storeError.description)])
        case .limitExceeded(let limit, let maximum):
            return limitExceeded(limit, maximum: maximum)
        }
    }

    static func revisionCompacted(since: Revision, oldest: Revision) -> VarlinkCallError {
        VarlinkCallError(
            name: prefix + "RevisionCompacted",
            parameters: ["since": .integer(since.rawValue), "oldest": .integer(oldest.rawValue)])
    }

    static func slowConsumer(_ revision: Revision) -> VarlinkCallError {
        VarlinkCallError(name: prefix + "SlowConsumer", parameters: ["revision": .integer(revision.rawValue)])
    }

    static func limitExceeded(_ limit: String, maximum: Int) -> VarlinkCallError {
        VarlinkCallError(
            name: prefix + "LimitExceeded", parameters: ["limit": .string(limit), "maximum": .integer(Int64(maximum))])
    }

    static func permissionDenied(_ key: String) -> VarlinkCallError {
        VarlinkCallError(name: prefix + "PermissionDenied", parameters: ["key": .string(key)])
    }
}
