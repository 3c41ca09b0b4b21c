public import PropdCore

/// io.propd's errors, each with the parameters the IDL declares: the daemon
/// sends them, clients read them back.
///
/// ```swift
/// let refusal = IOPropdError.noSuchKey(key: "room.temp")
/// refusal.qualifiedName   // "io.propd.NoSuchKey"
/// refusal.parameters      // ["key": "room.temp"]
/// IOPropdError(qualifiedName: refusal.qualifiedName, parameters: refusal.parameters) == refusal  // true
/// ```
public enum IOPropdError: Error, Sendable, Hashable {
    case noSuchKey(key: String)
    case invalidKey(key: String, reason: String)
    case invalidPattern(pattern: String, reason: String)
    case revisionMismatch(key: String, expected: Revision, actual: Revision)
    case keyIsDerived(key: String)
    case bindingInvalid(message: String, line: Int, column: Int)
    case bindingCycle(cycle: [String])
    case revisionCompacted(since: Revision, oldest: Revision)
    case slowConsumer(revision: Revision)
    case permissionDenied(key: String)
    case limitExceeded(limit: String, maximum: Int)
    case commandDisabled(command: String)
    case commandBusy(command: String)
    case noHandler(command: String)
    case commandFailed(command: String, message: String)
    case commandTimeout(command: String)
    case noSuchInvocation(id: String)
    /// Not in the contract's list: the database could not be written; nothing was stored.
    case storageFailure(message: String)

    /// The errors' names, as the IDL declares them.
    public enum Name: String, Sendable, CaseIterable {
        case noSuchKey = "NoSuchKey"
        case invalidKey = "InvalidKey"
        case invalidPattern = "InvalidPattern"
        case revisionMismatch = "RevisionMismatch"
        case keyIsDerived = "KeyIsDerived"
        case bindingInvalid = "BindingInvalid"
        case bindingCycle = "BindingCycle"
        case revisionCompacted = "RevisionCompacted"
        case slowConsumer = "SlowConsumer"
        case permissionDenied = "PermissionDenied"
        case limitExceeded = "LimitExceeded"
        case commandDisabled = "CommandDisabled"
        case commandBusy = "CommandBusy"
        case noHandler = "NoHandler"
        case commandFailed = "CommandFailed"
        case commandTimeout = "CommandTimeout"
        case noSuchInvocation = "NoSuchInvocation"
        case storageFailure = "StorageFailure"

        /// The name on the wire: `io.propd.NoSuchKey`.
        public var qualifiedName: String { IOPropdMethod.interface + "." + rawValue }
    }

    /// The error's name and its parameters, as sent.
    public var name: Name { encoded.name }

    /// The name on the wire: `io.propd.NoSuchKey`.
    public var qualifiedName: String { name.qualifiedName }

    /// The error's parameters, as sent.
    public var parameters: [String: JSONValue] { encoded.parameters }

    private var encoded: (name: Name, parameters: [String: JSONValue]) {
        switch self {
        case .noSuchKey(let key): return (.noSuchKey, ["key": .string(key)])
        case .invalidKey(let key, let reason): return (.invalidKey, ["key": .string(key), "reason": .string(reason)])
        case .invalidPattern(let pattern, let reason):
            return (.invalidPattern, ["pattern": .string(pattern), "reason": .string(reason)])
        case .revisionMismatch(let key, let expected, let actual):
            return (
                .revisionMismatch,
                ["key": .string(key), "expected": .integer(expected.rawValue), "actual": .integer(actual.rawValue)]
            )
        case .keyIsDerived(let key): return (.keyIsDerived, ["key": .string(key)])
        case .bindingInvalid(let message, let line, let column):
            return (
                .bindingInvalid,
                ["message": .string(message), "line": .integer(Int64(line)), "column": .integer(Int64(column))]
            )
        case .bindingCycle(let cycle): return (.bindingCycle, ["cycle": cycle.wireValue])
        case .revisionCompacted(let since, let oldest):
            return (.revisionCompacted, ["since": .integer(since.rawValue), "oldest": .integer(oldest.rawValue)])
        case .slowConsumer(let revision): return (.slowConsumer, ["revision": .integer(revision.rawValue)])
        case .permissionDenied(let key): return (.permissionDenied, ["key": .string(key)])
        case .limitExceeded(let limit, let maximum):
            return (.limitExceeded, ["limit": .string(limit), "maximum": .integer(Int64(maximum))])
        case .commandDisabled(let command): return (.commandDisabled, ["command": .string(command)])
        case .commandBusy(let command): return (.commandBusy, ["command": .string(command)])
        case .noHandler(let command): return (.noHandler, ["command": .string(command)])
        case .commandFailed(let command, let message):
            return (.commandFailed, ["command": .string(command), "message": .string(message)])
        case .commandTimeout(let command): return (.commandTimeout, ["command": .string(command)])
        case .noSuchInvocation(let id): return (.noSuchInvocation, ["id": .string(id)])
        case .storageFailure(let message): return (.storageFailure, ["message": .string(message)])
        }
    }

    /// Reads an error reply; nil when `qualifiedName` is not one of io.propd's
    /// errors. Lenient about parameters, as a client should be: a missing
    /// string reads as empty, a missing integer as 0.
    public init?(qualifiedName: String, parameters p: [String: JSONValue]) {
        let prefix = IOPropdMethod.interface + "."
        guard qualifiedName.hasPrefix(prefix), let name = Name(rawValue: String(qualifiedName.dropFirst(prefix.count)))
        else { return nil }
        func string(_ field: String) -> String { if case .string(let s)? = p[field] { s } else { "" } }
        func int(_ field: String) -> Int64 { if case .integer(let i)? = p[field] { i } else { 0 } }
        switch name {
        case .noSuchKey: self = .noSuchKey(key: string("key"))
        case .invalidKey: self = .invalidKey(key: string("key"), reason: string("reason"))
        case .invalidPattern: self = .invalidPattern(pattern: string("pattern"), reason: string("reason"))
        case .revisionMismatch:
            self = .revisionMismatch(key: string("key"), expected: Revision(int("expected")), actual: Revision(int("actual")))
        case .keyIsDerived: self = .keyIsDerived(key: string("key"))
        case .bindingInvalid:
            self = .bindingInvalid(message: string("message"), line: Int(int("line")), column: Int(int("column")))
        case .bindingCycle:
            var cycle: [String] = []
            if case .array(let items)? = p["cycle"] {
                for case .string(let key) in items { cycle.append(key) }
            }
            self = .bindingCycle(cycle: cycle)
        case .revisionCompacted: self = .revisionCompacted(since: Revision(int("since")), oldest: Revision(int("oldest")))
        case .slowConsumer: self = .slowConsumer(revision: Revision(int("revision")))
        case .permissionDenied: self = .permissionDenied(key: string("key"))
        case .limitExceeded: self = .limitExceeded(limit: string("limit"), maximum: Int(int("maximum")))
        case .commandDisabled: self = .commandDisabled(command: string("command"))
        case .commandBusy: self = .commandBusy(command: string("command"))
        case .noHandler: self = .noHandler(command: string("command"))
        case .commandFailed: self = .commandFailed(command: string("command"), message: string("message"))
        case .commandTimeout: self = .commandTimeout(command: string("command"))
        case .noSuchInvocation: self = .noSuchInvocation(id: string("id"))
        case .storageFailure: self = .storageFailure(message: string("message"))
        }
    }
}
