import PropdCore
import PropdService
import PropdVarlink
import PropdWire

extension IOPropdInterface {
    func get(_ call: VarlinkCall, _ connection: VarlinkConnectionContext) throws(VarlinkCallError) -> [String: JSONValue] {
        let keys = try WireCoding.keys(call.parameters, "keys")
        try requireReadable(keys, connection)
        let revision = try WireCoding.nonNegative(call.parameters, "revision").map { Revision($0) }
        return try read(keys, at: revision, connection).parameters
    }

    /// A `Get` read straight from its frame (see ``GetParameters``),
    /// answered as the parsed call is.
    func get(_ parameters: GetParameters, _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        do {
            try requireReadable(parameters.keys, connection)
            responder.succeed(try read(parameters.keys, at: nil, connection))
        } catch {
            responder.fail(error)
        }
    }

    /// Not more keys than allowed, each readable by the caller.
    private func requireReadable(_ keys: [Key], _ connection: VarlinkConnectionContext) throws(VarlinkCallError) {
        try checkKeyCount(keys.count)
        for key in keys { try access.require(.read, key, connection.peer) }
    }

    private func read(_ keys: [Key], at revision: Revision?, _ connection: VarlinkConnectionContext)
        throws(VarlinkCallError) -> PropertiesReply
    {
        let properties = try mapped { () throws(ServiceError) in
            if let revision { try service.get(keys, at: revision) } else { try service.get(keys) }
        }
        return PropertiesReply(properties: try redacted(properties, for: connection.peer))
    }

    func list(_ call: VarlinkCall, _ connection: VarlinkConnectionContext) throws(VarlinkCallError) -> [String: JSONValue] {
        let pattern = try call.parameters.optionalString("pattern").map { (text) throws(VarlinkCallError) in
            try WireCoding.pattern(text)
        }
        let limit = try WireCoding.nonNegative(call.parameters, "limit").map { Int(clamping: $0) }
        let peer = connection.peer
        try access.requireSome(pattern ?? .all, peer)
        let readable = access.filtersReads(for: peer)
        // With read rules in force, unreadable keys are left out before the limit applies.
        let (properties, revision) = try mapped { () throws(ServiceError) in
            try service.list(pattern: pattern, limit: readable ? nil : limit)
        }
        var visible = readable ? properties.filter { access.allows(.read, $0.key, peer) } : properties
        if readable, let limit, visible.count > limit { visible.removeLast(visible.count - limit) }
        visible = try redacted(visible, for: peer)
        return ListReply(properties: visible, revision: revision).parameters
    }

    func history(_ call: VarlinkCall, _ connection: VarlinkConnectionContext) throws(VarlinkCallError) -> [String: JSONValue] {
        let key = try WireCoding.key(try call.parameters.requiredString("key"))
        try access.require(.read, key, connection.peer)
        let limit = try WireCoding.nonNegative(call.parameters, "limit").map { Int(clamping: $0) }
        let before = try WireCoding.nonNegative(call.parameters, "before").map { Revision($0) }
        let entries = try mapped { () throws(ServiceError) in try service.history(of: key, limit: limit, before: before) }
        return HistoryReply(entries: entries).parameters
    }

    func bindings(_ call: VarlinkCall, _ connection: VarlinkConnectionContext) throws(VarlinkCallError) -> [String: JSONValue] {
        let pattern = try call.parameters.optionalString("pattern").map { (text) throws(VarlinkCallError) in
            try WireCoding.pattern(text)
        }
        let peer = connection.peer
        try access.requireSome(pattern ?? .all, peer)
        let all = try mapped { () throws(ServiceError) in try service.bindings(matching: pattern) }
        let redaction = ReadRedaction(access: access, peer: peer)
        let visible = all.filter { access.allows(.read, $0.key, peer) }.map(redaction.redact)
        return BindingsReply(bindings: visible.map(WireCoding.binding)).parameters
    }

    func stats() throws(VarlinkCallError) -> [String: JSONValue] {
        let figures = try mapped { () throws(ServiceError) in try service.statistics() }
        return DaemonStatistics(
            revision: figures.revision, keys: figures.keys, bindings: figures.bindings,
            subscriptions: figures.subscriptions, connections: connections(), uptimeSeconds: figures.uptimeSeconds,
            databaseBytes: figures.databaseBytes, role: nodeRole()
        ).parameters
    }
}
