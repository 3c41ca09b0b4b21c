import PropdCore
import PropdService
import PropdVarlink
import PropdWire

/// The daemon's side of io.propd: call parameters decoded with the
/// contract's errors for bad input, and the service's types and failures
/// turned into PropdWire's shapes and ``IOPropdError``s.
enum WireCoding {
    // MARK: Decoding

    static func key(_ text: String) throws(VarlinkCallError) -> Key {
        do {
            return try Key(text)
        } catch {
            throw VarlinkCallError(IOPropdError.invalidKey(key: text, reason: error.description))
        }
    }

    static func pattern(_ text: String) throws(VarlinkCallError) -> KeyPattern {
        do {
            return try KeyPattern(text)
        } catch {
            throw VarlinkCallError(IOPropdError.invalidPattern(pattern: text, reason: error.description))
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

    /// A binding as `Bindings` lists it.
    static func binding(_ binding: BindingDescription) -> BindingInfo {
        BindingInfo(
            key: binding.key.rawValue, expression: binding.expression, sources: binding.sources.map(\.rawValue),
            error: binding.error, state: binding.state)
    }

    // MARK: Errors

    /// The contract's error for a service failure.
    static func error(_ error: ServiceError) -> VarlinkCallError {
        switch error {
        case .noSuchKey(let key): return VarlinkCallError(.noSuchKey(key: key))
        case .revisionMismatch(let key, let expected, let actual):
            return VarlinkCallError(.revisionMismatch(key: key, expected: expected, actual: actual))
        case .keyIsDerived(let key): return VarlinkCallError(.keyIsDerived(key: key))
        case .bindingInvalid(let message, let line, let column):
            return VarlinkCallError(.bindingInvalid(message: message, line: line, column: column))
        case .bindingCycle(let keys): return VarlinkCallError(.bindingCycle(cycle: keys))
        case .revisionCompacted(let since, let oldest): return VarlinkCallError(.revisionCompacted(since: since, oldest: oldest))
        case .permissionDenied(let key): return VarlinkCallError(.permissionDenied(key: key))
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
            return VarlinkCallError(.storageFailure(message: storeError.description))
        case .limitExceeded(let limit, let maximum): return VarlinkCallError(.limitExceeded(limit: limit, maximum: maximum))
        }
    }
}

extension VarlinkCallError {
    /// io.propd's error as a Varlink error reply.
    init(_ error: IOPropdError) {
        self.init(name: error.qualifiedName, parameters: error.parameters)
    }
}
