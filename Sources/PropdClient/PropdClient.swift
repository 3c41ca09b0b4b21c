public import PropdCore
import PropdVarlink

/// A declared binding, as `Bindings` lists it.
public struct BindingInfo: Sendable, Hashable {
    public var key: String
    public var expression: String
    public var sources: [String]
    /// The derived property's current evaluation error, if any.
    public var error: String?
    /// The binding's operator state, as `Bind(…, state)` takes it back.
    public var state: JSONValue?

    public init(key: String, expression: String, sources: [String], error: String? = nil, state: JSONValue? = nil) {
        self.state = state
        self.key = key
        self.expression = expression
        self.sources = sources
        self.error = error
    }
}

/// Figures of a running daemon (`Stats`).
public struct DaemonStatistics: Sendable, Hashable {
    public var revision: Revision
    public var keys: Int
    public var bindings: Int
    public var subscriptions: Int
    public var connections: Int
    public var uptimeSeconds: Double
    public var databaseBytes: Int
}

/// What a `Reload` did: the store revision after it, the errors it
/// reported (`FILE:LINE:COLUMN: message`), and the settings it applied live
/// or refused because they need a restart.
public struct ReloadReply: Sendable, Hashable {
    public var revision: Revision
    public var errors: [String]
    public var applied: [String]
    public var refused: [String]
}

/// An async client of propd over its Unix socket.
///
/// ```swift
/// let client = try await PropdClient.connect()          // PROPD_SOCKET or the default socket
/// let revision = try await client.set(["room.temp": 21.5])
/// let temp = try await client.get(["room.temp"])[0].value   // 21.5
/// for try await event in client.observe(["room.*"]) { print(event.key, event.value ?? "-") }
/// ```
///
/// Calls may be made concurrently; they share one connection (pipelined;
/// with the `.blockingSocket` transport, they take turns).
/// ``observe(_:since:replay:initial:coalesce:)`` opens a connection of its own.
public final class PropdClient: Sendable {
    /// The socket this client talks to.
    public let socketPath: String
    let connection: Connection

    /// How calls reach the daemon.
    public enum Transport: Sendable {
        /// SwiftNIO's event loops: calls from many tasks are pipelined on one
        /// connection without blocking a thread. The default.
        case eventLoop
        /// A plain blocking socket: no event loop and no thread are started,
        /// each call blocks its thread for the round trip. For a program that
        /// makes a few calls and exits (propctl).
        case blockingSocket
    }

    enum Connection: Sendable {
        case eventLoop(VarlinkConnection)
        case blockingSocket(VarlinkSocketConnection)
    }

    private init(socketPath: String, connection: Connection) {
        self.socketPath = socketPath
        self.connection = connection
    }

    /// Connects to propd at `socketPath`.
    /// - Throws: ``PropdClientError/cannotConnect(path:reason:)`` when nothing listens there.
    public static func connect(to socketPath: String, transport: Transport = .eventLoop) async throws(PropdClientError)
        -> PropdClient
    {
        do {
            switch transport {
            case .eventLoop:
                return PropdClient(
                    socketPath: socketPath, connection: .eventLoop(try await VarlinkConnection.connect(to: socketPath)))
            case .blockingSocket:
                return PropdClient(
                    socketPath: socketPath, connection: .blockingSocket(try VarlinkSocketConnection.connect(to: socketPath)))
            }
        } catch {
            throw PropdClientError.from(error, path: socketPath)
        }
    }

    /// Closes the connection.
    public func close() async {
        switch connection {
        case .eventLoop(let connection): await connection.close()
        case .blockingSocket(let connection): connection.close()
        }
    }

    func call(_ method: String, _ parameters: [String: JSONValue] = [:]) async throws(PropdClientError)
        -> [String: JSONValue]
    {
        do {
            switch connection {
            case .eventLoop(let connection): return try await connection.call("io.propd." + method, parameters)
            case .blockingSocket(let connection): return try connection.call("io.propd." + method, parameters)
            }
        } catch {
            throw PropdClientError.from(error, path: socketPath)
        }
    }

    // MARK: Writes

    /// Writes every key atomically as one revision; `expect` maps keys to the
    /// revision they must still have (0: must not exist).
    ///
    /// - Parameter ttl: milliseconds (1 to 2^31) after which every key is
    ///   deleted; a later Set with `ttl` restarts the clock, one without makes
    ///   the key permanent.
    @discardableResult
    public func set(_ values: [String: JSONValue], expect: [String: Revision] = [:], ttl: Int64? = nil)
        async throws(PropdClientError) -> Revision
    {
        var parameters: [String: JSONValue] = ["values": .object(values)]
        if !expect.isEmpty { parameters["expect"] = Self.encode(expect) }
        if let ttl { parameters["ttl"] = .integer(ttl) }
        return try WireDecoding.revision(try await call("Set", parameters), "revision")
    }

    /// Deletes the keys, and every non-derived key matching `patterns`,
    /// atomically as one revision. Patterns that match nothing (and no keys)
    /// consume no revision: the answer is the current one.
    @discardableResult
    public func delete(_ keys: [String], expect: [String: Revision] = [:], patterns: [String] = [])
        async throws(PropdClientError) -> Revision
    {
        var parameters: [String: JSONValue] = ["keys": .array(keys.map { .string($0) })]
        if !expect.isEmpty { parameters["expect"] = Self.encode(expect) }
        if !patterns.isEmpty { parameters["patterns"] = .array(patterns.map { .string($0) }) }
        return try WireDecoding.revision(try await call("Delete", parameters), "revision")
    }

    /// Declares or replaces the binding of `key`; returns its sources.
    ///
    /// - Parameter state: a binding's operator state as ``bindings(_:)``
    ///   returned it: the binding continues from it instead of evaluating.
    @discardableResult
    public func bind(_ key: String, _ expression: String, state: JSONValue? = nil) async throws(PropdClientError)
        -> (revision: Revision, sources: [String])
    {
        var parameters: [String: JSONValue] = ["key": .string(key), "expression": .string(expression)]
        if let state { parameters["state"] = state }
        let reply = try await call("Bind", parameters)
        return (try WireDecoding.revision(reply, "revision"), try WireDecoding.strings(reply, "sources"))
    }

    /// Removes the binding of `key`; the key keeps its last value.
    @discardableResult
    public func unbind(_ key: String) async throws(PropdClientError) -> Revision {
        try WireDecoding.revision(try await call("Unbind", ["key": .string(key)]), "revision")
    }

    // MARK: Reads

    /// The named properties, in the order asked; with `revision`, as they
    /// were at that revision (from history).
    public func get(_ keys: [String], revision: Revision? = nil) async throws(PropdClientError) -> [Property] {
        var parameters: [String: JSONValue] = ["keys": .array(keys.map { .string($0) })]
        if let revision { parameters["revision"] = .integer(revision.rawValue) }
        let reply = try await call("Get", parameters)
        var properties: [Property] = []
        for object in try WireDecoding.objects(reply, "properties") { properties.append(try WireDecoding.property(object)) }
        return properties
    }

    /// The properties matching `pattern` (all when `nil`), sorted by key, and
    /// the revision they were read at.
    public func list(_ pattern: String? = nil, limit: Int? = nil) async throws(PropdClientError)
        -> (properties: [Property], revision: Revision)
    {
        var parameters: [String: JSONValue] = [:]
        if let pattern { parameters["pattern"] = .string(pattern) }
        if let limit { parameters["limit"] = .integer(Int64(limit)) }
        let reply = try await call("List", parameters)
        var properties: [Property] = []
        for object in try WireDecoding.objects(reply, "properties") { properties.append(try WireDecoding.property(object)) }
        return (properties, try WireDecoding.revision(reply, "revision"))
    }

    /// Past changes of `key`, newest first.
    public func history(_ key: String, limit: Int? = nil, before: Revision? = nil) async throws(PropdClientError)
        -> [Event]
    {
        var parameters: [String: JSONValue] = ["key": .string(key)]
        if let limit { parameters["limit"] = .integer(Int64(limit)) }
        if let before { parameters["before"] = .integer(before.rawValue) }
        var events: [Event] = []
        for object in try WireDecoding.objects(try await call("History", parameters), "entries") {
            events.append(try WireDecoding.event(object))
        }
        return events
    }

    /// The declared bindings matching `pattern`, sorted by key.
    public func bindings(_ pattern: String? = nil) async throws(PropdClientError) -> [BindingInfo] {
        let reply = try await call("Bindings", pattern.map { ["pattern": .string($0)] } ?? [:])
        var bindings: [BindingInfo] = []
        for object in try WireDecoding.objects(reply, "bindings") {
            bindings.append(
                BindingInfo(
                    key: try WireDecoding.string(object, "key"),
                    expression: try WireDecoding.string(object, "expression"),
                    sources: try WireDecoding.strings(object, "sources"),
                    error: try WireDecoding.optionalString(object, "error"),
                    state: object["state"]))
        }
        return bindings
    }

    /// Reads the configuration and the binding files again, as SIGHUP does;
    /// the errors are `FILE:LINE:COLUMN: message`.
    public func reload() async throws(PropdClientError) -> ReloadReply {
        let reply = try await call("Reload")
        func optionalStrings(_ name: String) throws(PropdClientError) -> [String] {
            reply[name] == nil || reply[name] == .null ? [] : try WireDecoding.strings(reply, name)
        }
        return ReloadReply(
            revision: try WireDecoding.revision(reply, "revision"), errors: try WireDecoding.strings(reply, "errors"),
            applied: try optionalStrings("applied"), refused: try optionalStrings("refused"))
    }

    /// Figures of the running daemon.
    public func stats() async throws(PropdClientError) -> DaemonStatistics {
        let reply = try await call("Stats")
        guard let uptime = reply["uptimeSeconds"]?.doubleValue else { throw .malformedReply("missing uptimeSeconds") }
        return DaemonStatistics(
            revision: try WireDecoding.revision(reply, "revision"),
            keys: Int(try WireDecoding.integer(reply, "keys")),
            bindings: Int(try WireDecoding.integer(reply, "bindings")),
            subscriptions: Int(try WireDecoding.integer(reply, "subscriptions")),
            connections: Int(try WireDecoding.integer(reply, "connections")),
            uptimeSeconds: uptime,
            databaseBytes: Int(try WireDecoding.integer(reply, "databaseBytes")))
    }

    static func encode(_ expect: [String: Revision]) -> JSONValue {
        .object(expect.mapValues { .integer($0.rawValue) })
    }
}
