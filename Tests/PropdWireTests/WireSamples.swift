import PropdCore
import PropdWire

/// Values of every io.propd shape; the first of each list has every
/// optional field filled.
enum WireSamples {
    static func key(_ text: String) -> Key {
        guard let key = try? Key(text) else { preconditionFailure("\(text) is a valid key") }
        return key
    }

    static let properties: [Property] = [
        Property(
            key: key("room.temp"), value: .object(["c": .double(21.5), "ok": .bool(true)]), revision: Revision(7),
            created: Revision(3), binding: "a.b.map(x => x + 1)", error: "division by zero", expires: 1_790_000_000_000),
        Property(key: key("room.name"), value: .string("kitchen \"east\" \u{1}"), revision: Revision(1), created: Revision(1)),
        Property(key: key("derived.never"), value: nil, revision: Revision(9), created: Revision(9), binding: "x.take(0)"),
        Property(key: key("n.null"), value: .null, revision: Revision(Int64.max), created: Revision(0)),
    ]

    static let events: [Event] = [
        Event(key: "room.temp", kind: .error, value: .integer(21), revision: Revision(8), error: "timeout after 30s"),
        Event(key: "room.temp", kind: .set, value: .array([.integer(1), .string("é")]), revision: Revision(9)),
        Event(key: "room.temp", kind: .delete, value: nil, revision: Revision(10)),
        Event(key: "", kind: .synced, value: nil, revision: Revision(10)),
        Event(key: "a", kind: .initial, value: .null, revision: Revision(2)),
        Event(key: "a", kind: .replay, value: .double(0.1), revision: Revision(3)),
    ]

    static let bindings: [BindingInfo] = [
        BindingInfo(
            key: "room.avg", expression: "combineLatest(a, b).map(x => x[0])", sources: ["a", "b"], error: "bad",
            state: .object(["count": .integer(3)])),
        BindingInfo(key: "c", expression: "a", sources: []),
    ]

    static let invocations: [Invocation] = [
        Invocation(id: "inv-1", command: key("login.submit"), argument: .object(["user": .string("ada")])),
        Invocation(id: "inv-2", command: key("door.open"), argument: nil),
    ]

    static let errors: [IOPropdError] = [
        .noSuchKey(key: "room.temp"),
        .invalidKey(key: "bad key", reason: "contains a space"),
        .invalidPattern(pattern: "a.**.b", reason: "** only at the end"),
        .revisionMismatch(key: "room.temp", expected: Revision(4), actual: Revision(7)),
        .keyIsDerived(key: "room.avg"),
        .bindingInvalid(message: "1:5: expected ')'", line: 1, column: 5),
        .bindingCycle(cycle: ["a", "b", "c"]),
        .revisionCompacted(since: Revision(10), oldest: Revision(50)),
        .slowConsumer(revision: Revision(99)),
        .permissionDenied(key: "secret.*"),
        .limitExceeded(limit: "max-keys-per-call", maximum: 65_536),
        .commandDisabled(command: "door.open"),
        .commandBusy(command: "door.open"),
        .noHandler(command: "door.open"),
        .commandFailed(command: "door.open", message: "jammed"),
        .commandTimeout(command: "door.open"),
        .noSuchInvocation(id: "inv-9"),
        .storageFailure(message: "disk I/O error"),
    ]

    /// A call of each method with every optional parameter given.
    static let fullCalls: [IOPropdCall] = [
        .get(keys: ["a", "b"], revision: Revision(3)),
        .list(pattern: "room.*", limit: 10),
        .set(values: ["a": 1], expect: ["a": Revision(0)], ttl: 1000),
        .delete(keys: ["a"], expect: ["a": Revision(2)], patterns: ["tmp.*"]),
        .subscribe(patterns: ["room.*"], since: Revision(4), replay: 2, initial: false, coalesce: true),
        .history(key: "a", limit: 5, before: Revision(9)),
        .bind(key: "c", expression: "a", state: .object([:])),
        .unbind(key: "c"),
        .bindings(pattern: "c*"),
        .reload,
        .stats,
        .execute(command: "door.open", argument: "now", timeout: 500),
        .serve(commands: ["door.open"]),
        .complete(id: "inv-1", result: .bool(true), error: "jammed"),
    ]

    /// A reply of `method` with every optional field filled.
    static func fullReply(_ method: IOPropdMethod) -> any IOPropdReply {
        replies(method)[0]
    }

    /// Replies of `method`, the first with every optional field filled.
    static func replies(_ method: IOPropdMethod) -> [any IOPropdReply] {
        switch method {
        case .get: return [PropertiesReply(properties: properties), PropertiesReply(properties: [])]
        case .list: return [ListReply(properties: properties, revision: Revision(12)), ListReply(properties: [], revision: Revision(0))]
        case .set, .delete, .unbind: return [RevisionReply(revision: Revision(42))]
        case .subscribe: return events.map { EventReply(event: $0) }
        case .history: return [HistoryReply(entries: events), HistoryReply(entries: [])]
        case .bind: return [BindReply(revision: Revision(5), sources: ["a", "b"]), BindReply(revision: Revision(6), sources: [])]
        case .bindings: return [BindingsReply(bindings: bindings), BindingsReply(bindings: [])]
        case .reload:
            return [
                ReloadReply(revision: Revision(3), errors: ["a.prop:1:2: bad"], applied: ["log-level"], refused: ["socket"]),
                ReloadReply(revision: Revision(3), errors: []),
            ]
        case .stats:
            return [
                DaemonStatistics(
                    revision: Revision(10), keys: 4, bindings: 2, subscriptions: 1, connections: 3, uptimeSeconds: 12.25,
                    databaseBytes: 4096),
                DaemonStatistics(
                    revision: Revision(0), keys: 0, bindings: 0, subscriptions: 0, connections: 0, uptimeSeconds: 3,
                    databaseBytes: 0),
            ]
        case .execute:
            return [
                ExecutionResult(result: .object(["welcome": .bool(true)]), revision: Revision(8)),
                ExecutionResult(result: nil, revision: Revision(9)),
            ]
        case .serve: return invocations.map { InvocationReply(invocation: $0) }
        case .complete: return [EmptyReply()]
        }
    }
}

extension JSONValue {
    /// The object's fields, nil for any other value.
    var fields: [String: JSONValue]? {
        if case .object(let object) = self { object } else { nil }
    }
}
