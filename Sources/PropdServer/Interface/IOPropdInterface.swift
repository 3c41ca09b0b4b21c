import PropdCore
import Synchronization
public import PropdService
public import PropdVarlink
public import PropdWire

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
    /// The connection count of the server, for `Stats`.
    let connections: @Sendable () -> Int
    /// What `Reload` runs (the daemon's reloader); without it `Reload` is
    /// `MethodNotImplemented`.
    public var runReload: (@Sendable () async -> ReloadReply)?
    /// What `Stats` says this daemon is (the daemon sets a cluster node's).
    public var nodeRole: @Sendable () -> NodeRole = { .standalone }

    public init(
        service: PropertyService, limits: InterfaceLimits = InterfaceLimits(), access: any AccessCheck = AllowAll(),
        connections: @escaping @Sendable () -> Int
    ) {
        self.service = service
        self.liveLimits = LiveInterfaceLimits(limits)
        self.access = access
        self.connections = connections
    }

    /// The interface, ready to register with a ``VarlinkServer``.
    public var varlinkInterface: VarlinkInterface {
        VarlinkInterface(
            name: IOPropdMethod.interface, description: ioPropdDescription,
            methods: [
                // Reads are answered on the connection's loop in the
                // client's order: each starts once every call before it is
                // answered, so it sees exactly the writes sent before it
                // (and a run of large replies is made one at a time as the
                // connection has room; see VarlinkMethod.startingAfterEarlierCalls).
                .synchronous(IOPropdMethod.get.rawValue) { call, connection in try get(call, connection) }
                    .startingAfterEarlierCalls()
                    .decodingDirectly(GetParameters.init(reading:)) { parameters, connection, responder in
                        get(parameters, connection, responder)
                    },
                .synchronous(IOPropdMethod.list.rawValue) { call, connection in try list(call, connection) }
                    .startingAfterEarlierCalls(),
                .responding(IOPropdMethod.set.rawValue) { call, connection, responder in
                    set(call, connection, responder)
                }
                .decodingDirectly(SetParameters.init(reading:)) { parameters, connection, responder in
                    setDecodedDirectly(parameters, connection, responder)
                },
                .responding(IOPropdMethod.delete.rawValue) { call, connection, responder in
                    delete(call, connection, responder)
                },
                .streaming(IOPropdMethod.subscribe.rawValue) { call, connection, stream in
                    subscribe(call, connection, stream)
                },
                .synchronous(IOPropdMethod.history.rawValue) { call, connection in try history(call, connection) }
                    .startingAfterEarlierCalls(),
                .responding(IOPropdMethod.bind.rawValue) { call, connection, responder in
                    bind(call, connection, responder)
                },
                .responding(IOPropdMethod.unbind.rawValue) { call, connection, responder in
                    unbind(call, connection, responder)
                },
                .synchronous(IOPropdMethod.bindings.rawValue) { call, connection in try bindings(call, connection) }
                    .startingAfterEarlierCalls(),
                .synchronous(IOPropdMethod.stats.rawValue) { _, _ in try stats() }.startingAfterEarlierCalls(),
                .responding(IOPropdMethod.reload.rawValue) { _, connection, responder in
                    reload(connection, responder)
                },
                // Commands (CONTRACT 6.2): IOPropdInterface+Commands.swift.
                .responding(IOPropdMethod.execute.rawValue) { call, connection, responder in
                    execute(call, connection, responder)
                },
                .streaming(IOPropdMethod.serve.rawValue) { call, connection, stream in
                    serve(call, connection, stream)
                },
                .responding(IOPropdMethod.complete.rawValue) { call, connection, responder in
                    complete(call, connection, responder)
                },
            ])
    }

    /// Changes the limits from the next call on (a reload).
    public func updateLimits(_ limits: InterfaceLimits) {
        liveLimits.current.withLock { $0 = limits }
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
        if count > maximum { throw VarlinkCallError(.limitExceeded(limit: limit, maximum: maximum)) }
    }

    /// `max-keys-per-call`, for the calls that name keys.
    func checkKeyCount(_ count: Int) throws(VarlinkCallError) {
        try checkCount(count, "max-keys-per-call", limits.keysPerCall)
    }
}
