public import Logging
import NIOCore
import NIOConcurrencyHelpers
public import PropdEpoll

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Varlink service on a Unix stream socket.
///
/// Serves the given interfaces plus `org.varlink.service` (GetInfo,
/// GetInterfaceDescription). `run()` listens and serves until
/// ``beginGracefulShutdown()`` or cancellation; it fits a ServiceLifecycle
/// service (`withGracefulShutdownHandler { try await server.run() }
/// onGracefulShutdown: { server.beginGracefulShutdown() }`).
///
/// ```swift
/// let server = try VarlinkServer(
///     address: .path("/tmp/ping.sock"),
///     info: VarlinkServiceInfo(vendor: "Example", product: "ping", version: "1", url: "https://example.org"),
///     interfaces: [ping],
///     logger: logger)
/// try await server.run()
/// ```
///
/// Semantics:
/// - Calls on one connection run concurrently; replies leave in call order.
///   A `more` call starts once every earlier call is answered, and later
///   calls wait until its stream ends.
/// - `oneway` calls run but get no reply (nor do their errors).
/// - A call of the wrong shape (no `method`, `parameters` not an object, a
///   flag not a bool) gets `org.varlink.service.InvalidParameter(parameter:
///   <member>)` and the connection goes on. `upgrade` is not supported:
///   `InvalidParameter(parameter: "upgrade")`.
/// - A frame that is not a JSON object (bad syntax, invalid UTF-8, nesting
///   deeper than the limit) or a message over the size limit: the calls
///   before it are answered, then ``VarlinkServerConfiguration/protocolViolationReply``
///   is sent and the connection closes; other connections are untouched.
/// - A handler that throws something other than ``VarlinkCallError`` is
///   logged; the caller gets ``VarlinkServerConfiguration/unexpectedErrorReply``.
/// - Graceful shutdown closes the listener, answers in-flight calls, closes
///   idle connections and connections with a live stream at once, and
///   closes what remains after the timeout; a `.path` socket file is removed.
public final class VarlinkServer: Sendable {
    public let address: VarlinkBindAddress
    public let configuration: VarlinkServerConfiguration
    let registry: VarlinkRegistry
    /// The loops given at `init`; without them each run starts its own.
    private let givenLoops: EpollEventLoopGroup?
    /// Incomplete messages of all connections, against ``VarlinkServerConfiguration/maximumPartialMessageBytes``.
    private let partialBudget: VarlinkPartialMessageBudget
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    private struct State {
        enum Phase {
            case idle
            case binding
            case listening(EpollListener)
            case stopped
        }

        var phase = Phase.idle
        /// The loops of the run under way, from its start to its end.
        var loops: ServingLoops?
        /// Closes what a graceful shutdown left open, once its time is up.
        var shutdownTimeout: Scheduled<Void>?
        var shutdownRequested = false
        var listenResult: Result<Void, VarlinkServerError>?
        var listenWaiters: [CheckedContinuation<Void, any Error>] = []
        /// Admitted connections, and those whose admission is pending:
        /// what the limits count.
        var connections: [UInt64: any Channel] = [:]
        /// Connections refused by a limit, open until their refusal is
        /// answered: closed at shutdown, never counted against a limit.
        var refused: [UInt64: any Channel] = [:]
        var nextConnectionID: UInt64 = 1
        /// ``VarlinkServerConfiguration/maximumConnections`` and
        /// ``VarlinkServerConfiguration/messageTimeout``, changeable while serving.
        var maximumConnections = 0
        var maximumConnectionsPerUser = 0
        var messageTimeout: Duration = .seconds(60)
        /// Open connections per peer uid (only peers the per-user limit applies to).
        var connectionsByUser: [UInt32: Int] = [:]
    }

    /// - Parameter eventLoopGroup: The loops connections are served on;
    ///   without it, each ``run()`` starts one per core and stops them when it ends.
    /// - Throws: ``VarlinkRegistrationError`` when interfaces or methods collide.
    public init(
        address: VarlinkBindAddress,
        info: VarlinkServiceInfo,
        interfaces: [VarlinkInterface],
        configuration: VarlinkServerConfiguration = VarlinkServerConfiguration(),
        eventLoopGroup: EpollEventLoopGroup? = nil,
        logger: Logger
    ) throws(VarlinkRegistrationError) {
        self.address = address
        self.configuration = configuration
        self.registry = try VarlinkRegistry(info: info, interfaces: interfaces)
        self.givenLoops = eventLoopGroup
        self.partialBudget = VarlinkPartialMessageBudget(limit: configuration.maximumPartialMessageBytes)
        self.logger = logger
        state.withLockedValue {
            $0.maximumConnections = configuration.maximumConnections
            $0.maximumConnectionsPerUser = configuration.maximumConnectionsPerUser
            $0.messageTimeout = configuration.messageTimeout
        }
    }

    /// Changes the limits that can change while serving: the connection
    /// limit and the cap on incomplete messages apply at once, the message
    /// timeout to connections accepted from now on; the other settings of
    /// `configuration` keep their start values.
    public func updateLimits(
        maximumConnections: Int, maximumConnectionsPerUser: Int, maximumPartialMessageBytes: Int,
        messageTimeout: Duration
    ) {
        state.withLockedValue {
            $0.maximumConnections = maximumConnections
            $0.maximumConnectionsPerUser = maximumConnectionsPerUser
            $0.messageTimeout = messageTimeout
        }
        partialBudget.limit = maximumPartialMessageBytes
    }

    /// The number of open connections (refused ones are not counted).
    public var connectionCount: Int { state.withLockedValue { $0.connections.count } }

    /// The number of connections refused by a limit and still open (until
    /// their refusal is answered, or their client leaves).
    public var refusedConnectionCount: Int { state.withLockedValue { $0.refused.count } }

    /// Returns once the server accepts connections; throws if it could not listen.
    public func listening() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let result: Result<Void, VarlinkServerError>? = state.withLockedValue { state in
                if let result = state.listenResult { return result }
                state.listenWaiters.append(continuation)
                return nil
            }
            if let result { continuation.resume(with: result.mapError { $0 }) }
        }
    }

    /// Listens and serves until a graceful shutdown completes or the task is
    /// cancelled (which closes every connection at once).
    public func run() async throws {
        let alreadyStarted = state.withLockedValue { state in
            guard case .idle = state.phase else { return true }
            state.phase = .binding
            return false
        }
        if alreadyStarted {
            throw VarlinkServerError(code: .alreadyRunning, address: address, reason: "run() called twice")
        }
        let serverChannel: EpollListener
        let loops: ServingLoops
        do {
            loops = try ServingLoops(given: givenLoops, count: configuration.eventLoopCount)
        } catch {
            let failure = VarlinkServerError(code: .cannotListen, address: address, reason: "\(error)")
            finishListening(.failure(failure))
            state.withLockedValue { $0.phase = .stopped }
            throw failure
        }
        do {
            state.withLockedValue { $0.loops = loops }
            serverChannel = try await bind(on: loops.group).get()
            try applySocketFileMode()
        } catch {
            let failure = VarlinkServerError(code: .cannotListen, address: address, reason: "\(error)")
            finishListening(.failure(failure))
            state.withLockedValue { $0.phase = .stopped }
            await loops.stopIfStarted()
            throw failure
        }
        let shutdownEarly = state.withLockedValue { state in
            state.phase = .listening(serverChannel)
            return state.shutdownRequested
        }
        logger.info("varlink server listening", metadata: ["address": "\(address)"])
        finishListening(.success(()))
        if shutdownEarly { beginGracefulShutdown() }

        await withTaskCancellationHandler {
            try? await serverChannel.closeFuture.get()
            await waitForConnectionsToClose()
        } onCancel: {
            self.closeEverything()
        }
        let shutdownTimeout = state.withLockedValue { state in
            state.phase = .stopped
            defer { state.shutdownTimeout = nil }
            return state.shutdownTimeout
        }
        shutdownTimeout?.cancel()
        await loops.stopIfStarted()
        removeSocketFile()
        logger.info("varlink server stopped", metadata: ["address": "\(address)"])
    }

    /// Stops accepting, lets in-flight calls finish and closes each connection
    /// once it is idle; connections still open after
    /// ``VarlinkServerConfiguration/gracefulShutdownTimeout`` are closed
    /// (live streams end at once: their owners see `onTermination`).
    public func beginGracefulShutdown() {
        let timeout = TimeAmount.nanoseconds(configuration.gracefulShutdownTimeout.nanoseconds)
        let (serverChannel, connections, refused): (EpollListener?, [any Channel], [any Channel]) =
            state.withLockedValue { state in
                state.shutdownRequested = true
                guard case .listening(let channel) = state.phase, state.shutdownTimeout == nil else {
                    return (nil, [], [])
                }
                // Scheduled while the run cannot end (it ends only once the
                // listener is closed, below, and cancels this under the same
                // lock before its loops stop): never on a loop that has ended.
                state.shutdownTimeout = channel.loop.scheduleTask(in: timeout) { [self] in
                    let left = self.state.withLockedValue { Array($0.connections.values) }
                    if !left.isEmpty {
                        logger.info(
                            "varlink shutdown timeout, closing connections", metadata: ["count": "\(left.count)"])
                    }
                    for connection in left { connection.close(promise: nil) }
                }
                return (channel, Array(state.connections.values), Array(state.refused.values))
            }
        guard let serverChannel else { return }
        serverChannel.close()
        for connection in connections {
            connection.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        // A refused connection has no call to finish.
        for connection in refused { connection.close(promise: nil) }
    }

    // MARK: Listening

    /// The loops a run serves its connections on, and their mailboxes.
    private struct ServingLoops: Sendable {
        let group: EpollEventLoopGroup
        let mailboxes: LoopMailboxes
        /// Started by the run (none were given): stopped when it ends.
        let started: Bool

        init(given: EpollEventLoopGroup?, count: Int) throws(EpollError) {
            if let given {
                group = given
                started = false
            } else {
                group = try EpollEventLoopGroup(loops: max(1, count), name: "varlink-loop")
                started = true
            }
            mailboxes = LoopMailboxes(group)
        }

        func stopIfStarted() async {
            if started { await group.stop() }
        }
    }

    private func bind(on group: EpollEventLoopGroup) -> EventLoopFuture<EpollListener> {
        let fd: Int32
        switch address.value {
        case .path(let path):
            do {
                fd = try EpollListener.bind(unixDomainSocketPath: path)
            } catch {
                return group.nextLoop().makeFailedFuture(error)
            }
        case .activated(let activated):
            fd = activated
        }
        let logger = self.logger
        return EpollListener.listen(
            on: fd, group: group, backlog: 256,
            waterMark: .init(low: configuration.outboundLowWaterMark, high: configuration.outboundHighWaterMark),
            acceptFailed: { error in
                logger.warning(
                    "varlink server cannot accept connections, accepting again in 100 ms",
                    metadata: ["error": "\(error)"])
            }
        ) { [self] channel in initialize(channel) }
    }

    private func applySocketFileMode() throws {
        guard case .path(let path) = address.value, let mode = configuration.socketFileMode else { return }
        if chmod(path, mode) != 0 {
            throw VarlinkServerError(code: .cannotListen, address: address, reason: "chmod failed (errno \(errno))")
        }
    }

    private func removeSocketFile() {
        guard case .path(let path) = address.value else { return }
        unlink(path)
    }

    private func finishListening(_ result: Result<Void, VarlinkServerError>) {
        let waiters = state.withLockedValue { state in
            state.listenResult = result
            defer { state.listenWaiters = [] }
            return state.listenWaiters
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 }) }
    }

    // MARK: Connections

    private func initialize(_ channel: any Channel) -> EventLoopFuture<Void> {
        let registry = self.registry
        var current = self.configuration
        current.messageTimeout = state.withLockedValue { $0.messageTimeout }
        let configuration = current
        let partialBudget = self.partialBudget
        let admission: UInt64? = state.withLockedValue { state in
            guard !state.shutdownRequested else { return nil }
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.connections[id] = channel
            return id
        }
        guard let id = admission else { return refuse(channel) }
        var labelled = logger
        labelled[metadataKey: "varlink.connection"] = "\(id)"
        let connectionLogger = labelled
        guard let loops = state.withLockedValue({ $0.loops }) else { return refuse(channel) }
        let mailbox = loops.mailboxes.mailbox(for: channel.eventLoop)
        @Sendable func addHandlers(_ peer: VarlinkPeerCredentials?) throws {
            var logger = connectionLogger
            if let peer { logger[metadataKey: "varlink.peer"] = "\(peer)" }
            let connection = VarlinkConnectionContext(
                id: id, peer: peer, logger: logger, eventLoop: channel.eventLoop,
                mailbox: mailbox, closeFuture: channel.closeFuture)
            try channel.pipeline.syncOperations.addHandler(
                VarlinkConnectionHandler(
                    registry: registry, configuration: configuration, partialBudget: partialBudget
                ) { _ in connection })
            logger.debug("varlink connection accepted")
        }
        return VarlinkPeerCredentials.read(from: channel).flatMap { [self] peer in
            // Counted once the peer is known: an unlimited user (root) is
            // never locked out, and the server's own user has no per-user limit.
            let unlimited = peer.map { configuration.unlimitedUsers.contains($0.uid) } ?? false
            let counted: UInt32? = peer.map(\.uid).flatMap { unlimited || $0 == Self.ownUID ? nil : $0 }
            let admitted = state.withLockedValue { state in
                let admitted: Bool
                if let uid = counted {
                    admitted = state.connections.count <= state.maximumConnections
                        && state.connectionsByUser[uid, default: 0] < state.maximumConnectionsPerUser
                    if admitted { state.connectionsByUser[uid, default: 0] += 1 }
                } else {
                    admitted = unlimited || state.connections.count <= state.maximumConnections
                }
                // Out of the count at once: a refused client that lingers
                // must not refuse the next one.
                if !admitted { state.refused[id] = state.connections.removeValue(forKey: id) }
                return admitted
            }
            channel.closeFuture.whenComplete { [self] _ in
                state.withLockedValue { state in
                    state.connections.removeValue(forKey: id)
                    state.refused.removeValue(forKey: id)
                    if admitted, let uid = counted {
                        state.connectionsByUser[uid, default: 1] -= 1
                        if state.connectionsByUser[uid] == 0 { state.connectionsByUser.removeValue(forKey: uid) }
                    }
                }
            }
            guard admitted else { return refuse(channel) }
            return channel.eventLoop.makeCompletedFuture { try addHandlers(peer) }
        }
    }

    /// The user the server runs as: like root, never limited per user.
    private static let ownUID = getuid()

    private func refuse(_ channel: any Channel) -> EventLoopFuture<Void> {
        logger.info(
            "varlink connection refused", metadata: ["maximumConnections": "\(configuration.maximumConnections)"])
        guard let reply = configuration.connectionLimitReply else {
            return channel.close()
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers([
                ByteToMessageHandler(VarlinkFrameDecoder(maximumMessageSize: configuration.maximumMessageSize)),
                VarlinkMessageEncoder(),
                VarlinkRefusalHandler(reply: reply),
            ])
        }
    }

    private func waitForConnectionsToClose() async {
        while true {
            let open = state.withLockedValue { Array($0.connections.values) + Array($0.refused.values) }
            guard let first = open.first else { return }
            try? await first.closeFuture.get()
        }
    }

    private func closeEverything() {
        let (serverChannel, connections): (EpollListener?, [any Channel]) = state.withLockedValue { state in
            state.shutdownRequested = true
            let open = Array(state.connections.values) + Array(state.refused.values)
            if case .listening(let channel) = state.phase { return (channel, open) }
            return (nil, open)
        }
        serverChannel?.close()
        for connection in connections { connection.close(promise: nil) }
    }
}
