public import PropdCore
import PropdVarlink
// The reply shapes (`BindingInfo`, `DaemonStatistics`, `ReloadReply`) are
// part of this client's API.
@_exported public import PropdWire

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

    /// Makes `call` and reads its reply as `Reply`.
    func call<Reply: IOPropdReply>(_ call: IOPropdCall, replying _: Reply.Type = Reply.self) async throws(PropdClientError)
        -> Reply
    {
        let reply: [String: JSONValue]
        let method = call.method.qualifiedName
        do {
            switch connection {
            case .eventLoop(let connection): reply = try await connection.call(method, call.parameters)
            case .blockingSocket(let connection): reply = try connection.call(method, call.parameters)
            }
        } catch {
            throw PropdClientError.from(error, path: socketPath)
        }
        do {
            return try Reply(parameters: reply)
        } catch {
            throw .malformedReply(error.message)
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
        try await call(.set(values: values, expect: expect, ttl: ttl), replying: RevisionReply.self).revision
    }

    /// Deletes the keys, and every non-derived key matching `patterns`,
    /// atomically as one revision. Patterns that match nothing (and no keys)
    /// consume no revision: the answer is the current one.
    @discardableResult
    public func delete(_ keys: [String], expect: [String: Revision] = [:], patterns: [String] = [])
        async throws(PropdClientError) -> Revision
    {
        try await call(.delete(keys: keys, expect: expect, patterns: patterns), replying: RevisionReply.self).revision
    }

    /// Declares or replaces the binding of `key`; returns its sources.
    ///
    /// - Parameter state: a binding's operator state as ``bindings(_:)``
    ///   returned it: the binding continues from it instead of evaluating.
    @discardableResult
    public func bind(_ key: String, _ expression: String, state: JSONValue? = nil) async throws(PropdClientError)
        -> (revision: Revision, sources: [String])
    {
        let reply = try await call(.bind(key: key, expression: expression, state: state), replying: BindReply.self)
        return (reply.revision, reply.sources)
    }

    /// Removes the binding of `key`; the key keeps its last value.
    @discardableResult
    public func unbind(_ key: String) async throws(PropdClientError) -> Revision {
        try await call(.unbind(key: key), replying: RevisionReply.self).revision
    }

    // MARK: Reads

    /// The named properties, in the order asked; with `revision`, as they
    /// were at that revision (from history).
    public func get(_ keys: [String], revision: Revision? = nil) async throws(PropdClientError) -> [Property] {
        try await call(.get(keys: keys, revision: revision), replying: PropertiesReply.self).properties
    }

    /// The properties matching `pattern` (all when `nil`), sorted by key, and
    /// the revision they were read at.
    public func list(_ pattern: String? = nil, limit: Int? = nil) async throws(PropdClientError)
        -> (properties: [Property], revision: Revision)
    {
        let reply = try await call(.list(pattern: pattern, limit: limit), replying: ListReply.self)
        return (reply.properties, reply.revision)
    }

    /// Past changes of `key`, newest first.
    public func history(_ key: String, limit: Int? = nil, before: Revision? = nil) async throws(PropdClientError)
        -> [Event]
    {
        try await call(.history(key: key, limit: limit, before: before), replying: HistoryReply.self).entries
    }

    /// The declared bindings matching `pattern`, sorted by key.
    public func bindings(_ pattern: String? = nil) async throws(PropdClientError) -> [BindingInfo] {
        try await call(.bindings(pattern: pattern), replying: BindingsReply.self).bindings
    }

    /// Reads the configuration and the binding files again, as SIGHUP does;
    /// the errors are `FILE:LINE:COLUMN: message`.
    public func reload() async throws(PropdClientError) -> ReloadReply {
        try await call(.reload)
    }

    /// Figures of the running daemon.
    public func stats() async throws(PropdClientError) -> DaemonStatistics {
        try await call(.stats)
    }
}
