public import PropdCore

/// A call of io.propd with its parameters, as a client sends it: absent
/// optional parameters are left out. The daemon decodes them with the
/// contract's errors for bad input (PropdServer's `WireCoding`).
///
/// ```swift
/// let call = IOPropdCall.set(values: ["room.temp": 21.5], expect: [:], ttl: nil)
/// call.method.qualifiedName   // "io.propd.Set"
/// call.parameters             // ["values": {"room.temp": 21.5}]
/// ```
public enum IOPropdCall: Sendable, Hashable {
    case get(keys: [String], revision: Revision?)
    case list(pattern: String?, limit: Int?)
    /// `expect` maps keys to the revision they must still have (0: must not exist).
    case set(values: [String: JSONValue], expect: [String: Revision], ttl: Int64?)
    case delete(keys: [String], expect: [String: Revision], patterns: [String])
    case subscribe(patterns: [String], since: Revision?, replay: Int?, initial: Bool?, coalesce: Bool?)
    case history(key: String, limit: Int?, before: Revision?)
    case bind(key: String, expression: String, state: JSONValue?)
    case unbind(key: String)
    case bindings(pattern: String?)
    case reload
    case stats
    /// `timeout` in whole milliseconds.
    case execute(command: String, argument: JSONValue?, timeout: Int64?)
    case serve(commands: [String])
    /// A result, or an error message when `error` is given.
    case complete(id: String, result: JSONValue?, error: String?)

    public var method: IOPropdMethod {
        switch self {
        case .get: return .get
        case .list: return .list
        case .set: return .set
        case .delete: return .delete
        case .subscribe: return .subscribe
        case .history: return .history
        case .bind: return .bind
        case .unbind: return .unbind
        case .bindings: return .bindings
        case .reload: return .reload
        case .stats: return .stats
        case .execute: return .execute
        case .serve: return .serve
        case .complete: return .complete
        }
    }

    /// The call's parameters, as the IDL declares them.
    public var parameters: [String: JSONValue] {
        var p: [String: JSONValue] = [:]
        switch self {
        case .get(let keys, let revision):
            p["keys"] = keys.wireValue
            p["revision"] = revision.map { .integer($0.rawValue) }
        case .list(let pattern, let limit):
            p["pattern"] = pattern.map(JSONValue.string)
            p["limit"] = limit.map { .integer(Int64($0)) }
        case .set(let values, let expect, let ttl):
            p["values"] = .object(values)
            if !expect.isEmpty { p["expect"] = Self.wire(expect) }
            p["ttl"] = ttl.map(JSONValue.integer)
        case .delete(let keys, let expect, let patterns):
            p["keys"] = keys.wireValue
            if !expect.isEmpty { p["expect"] = Self.wire(expect) }
            if !patterns.isEmpty { p["patterns"] = patterns.wireValue }
        case .subscribe(let patterns, let since, let replay, let initial, let coalesce):
            p["patterns"] = patterns.wireValue
            p["since"] = since.map { .integer($0.rawValue) }
            p["replay"] = replay.map { .integer(Int64($0)) }
            p["initial"] = initial.map(JSONValue.bool)
            p["coalesce"] = coalesce.map(JSONValue.bool)
        case .history(let key, let limit, let before):
            p["key"] = .string(key)
            p["limit"] = limit.map { .integer(Int64($0)) }
            p["before"] = before.map { .integer($0.rawValue) }
        case .bind(let key, let expression, let state):
            p["key"] = .string(key)
            p["expression"] = .string(expression)
            p["state"] = state
        case .unbind(let key):
            p["key"] = .string(key)
        case .bindings(let pattern):
            p["pattern"] = pattern.map(JSONValue.string)
        case .reload, .stats:
            break
        case .execute(let command, let argument, let timeout):
            p["command"] = .string(command)
            p["argument"] = argument
            p["timeout"] = timeout.map(JSONValue.integer)
        case .serve(let commands):
            p["commands"] = commands.wireValue
        case .complete(let id, let result, let error):
            p["id"] = .string(id)
            p["result"] = result
            p["error"] = error.map(JSONValue.string)
        }
        return p
    }

    private static func wire(_ expect: [String: Revision]) -> JSONValue {
        .object(expect.mapValues { .integer($0.rawValue) })
    }
}
