import PropdCore
import Synchronization
public import PropdService
public import PropdVarlink

/// Limits the io.propd handlers enforce, each answered with
/// `LimitExceeded(limit, maximum)`.
public struct InterfaceLimits: Sendable, Hashable {
    /// Patterns one `Subscribe` may name.
    public var patternsPerSubscription: Int
    /// Keys one `Set`, `Delete` or `Get` may name.
    public var keysPerCall: Int

    public init(patternsPerSubscription: Int = 256, keysPerCall: Int = 65_536) {
        self.patternsPerSubscription = patternsPerSubscription
        self.keysPerCall = keysPerCall
    }
}

/// The interface's limits, shared by its copies so a reload reaches all of them.
final class LiveInterfaceLimits: Sendable {
    let current: Mutex<InterfaceLimits>

    init(_ limits: InterfaceLimits) { current = Mutex(limits) }
}

/// The io.propd interface: decodes each call, asks the service, encodes the
/// answer. It holds no logic of its own beyond the wire and the limits.
public struct IOPropdInterface: Sendable {
    let service: PropertyService
    private let liveLimits: LiveInterfaceLimits
    /// The limits in force (a reload may change them).
    var limits: InterfaceLimits { liveLimits.current.withLock { $0 } }
    let access: any AccessCheck
    let order = ConnectionOrder()
    /// Set when writes are committed on the event loop that received them
    /// (durability `normal`; with `full` a commit waits for an fsync, which
    /// must not hold an event loop, so the writer's own queue commits).
    let tickCommit: TickCommit?
    /// The connection count of the server, for `Stats`.
    let connections: @Sendable () -> Int
    /// What `Reload` runs (the daemon's reloader); without it `Reload` is
    /// `MethodNotImplemented`.
    public var runReload: (@Sendable () async -> ReloadOutcome)?

    public init(
        service: PropertyService, limits: InterfaceLimits = InterfaceLimits(), access: any AccessCheck = AllowAll(),
        connections: @escaping @Sendable () -> Int
    ) {
        self.service = service
        self.liveLimits = LiveInterfaceLimits(limits)
        self.access = access
        self.connections = connections
        self.tickCommit = service.store.configuration.durability == .normal ? TickCommit(service.commitPending) : nil
    }

    /// The interface, ready to register with a ``VarlinkServer``.
    public var varlinkInterface: VarlinkInterface {
        VarlinkInterface(
            name: "io.propd", description: ioPropdDescription,
            methods: [
                // Reads of possibly large replies are made one at a time as the
                // connection has room (see VarlinkMethod.startingAfterEarlierCalls).
                .responding("Get") { call, connection, responder in
                    afterWrites(connection, responder) { () throws(VarlinkCallError) in try get(call, connection) }
                }.startingAfterEarlierCalls(),
                .responding("List") { call, connection, responder in
                    afterWrites(connection, responder) { () throws(VarlinkCallError) in try list(call, connection) }
                }.startingAfterEarlierCalls(),
                .responding("Set") { call, connection, responder in set(call, connection, responder) },
                .responding("Delete") { call, connection, responder in delete(call, connection, responder) },
                .streaming("Subscribe") { call, connection, stream in subscribe(call, connection, stream) },
                .responding("History") { call, connection, responder in
                    afterWrites(connection, responder) { () throws(VarlinkCallError) in try history(call, connection) }
                }.startingAfterEarlierCalls(),
                .responding("Bind") { call, connection, responder in bind(call, connection, responder) },
                .responding("Unbind") { call, connection, responder in unbind(call, connection, responder) },
                .responding("Bindings") { call, connection, responder in
                    afterWrites(connection, responder) { () throws(VarlinkCallError) in try bindings(call, connection) }
                }.startingAfterEarlierCalls(),
                .responding("Stats") { _, connection, responder in
                    afterWrites(connection, responder) { () throws(VarlinkCallError) in try stats() }
                },
                .responding("Reload") { _, connection, responder in reload(connection, responder) },
                // Commands (CONTRACT 6.2): IOPropdInterface+Commands.swift.
                .responding("Execute") { call, connection, responder in execute(call, connection, responder) },
                .streaming("Serve") { call, connection, stream in serve(call, connection, stream) },
                .responding("Complete") { call, connection, responder in complete(call, connection, responder) },
            ])
    }

    /// Changes the limits from the next call on (a reload).
    public func updateLimits(_ limits: InterfaceLimits) {
        liveLimits.current.withLock { $0 = limits }
    }

    /// Answers a read in the connection's order: after the writes sent
    /// before it, before those sent after it.
    func afterWrites(
        _ connection: VarlinkConnectionContext, _ responder: VarlinkResponder,
        _ read: @escaping @Sendable () throws(VarlinkCallError) -> [String: JSONValue]
    ) {
        let eventLoop = connection.eventLoop
        order.run(.read, on: connection.id) { done, _ in
            let answer: @Sendable () -> Void = {
                do {
                    responder.succeed(try read())
                } catch {
                    responder.fail(error)
                }
                done()
            }
            // Reads run on the connection's loop, never on the writer's thread.
            if eventLoop.inEventLoop { answer() } else { eventLoop.execute(answer) }
        }
    }

    /// Runs a service call that throws ``ServiceError`` and maps its failure.
    func mapped<T>(_ body: () throws(ServiceError) -> T) throws(VarlinkCallError) -> T {
        do {
            return try body()
        } catch {
            throw WireCoding.error(error)
        }
    }

    func checkCount(_ count: Int, _ limit: String, _ maximum: Int) throws(VarlinkCallError) {
        if count > maximum { throw WireCoding.limitExceeded(limit, maximum: maximum) }
    }
}
