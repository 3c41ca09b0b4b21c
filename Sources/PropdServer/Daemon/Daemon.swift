import Foundation
public import Logging
import NIOCore
import PropdService
import PropdStore
import PropdVarlink
import PropdWire
import ServiceLifecycle

/// propd assembled: store, service, io.propd on a Varlink server, systemd
/// notification, SIGHUP reload and SIGTERM graceful stop.
public enum Daemon {
    /// Starts and runs until SIGTERM or SIGINT (``start(configuration:flags:environment:logger:)``,
    /// then ``StartedDaemon/run()``).
    public static func run(
        configuration: DaemonConfiguration, flags: DaemonFlags, environment: [String: String], logger: Logger
    ) async throws {
        try await start(configuration: configuration, flags: flags, environment: environment, logger: logger).run()
    }

    /// Takes the socket and the database (in cluster mode, reads the space
    /// from etcd), restores bindings and commands, and
    /// registers io.propd; nothing is served until ``StartedDaemon/run()``.
    ///
    /// - Throws: why it cannot start; nothing is then listening.
    public static func start(
        configuration: DaemonConfiguration, flags: DaemonFlags, environment: [String: String], logger: Logger
    ) async throws(DaemonStartError) -> StartedDaemon {
        // Signals propd gives no meaning: ignored, not fatal (their default).
        signal(SIGUSR1, SIG_IGN)
        signal(SIGUSR2, SIG_IGN)
        for setting in configuration.ignoredSettings { logger.warning("setting ignored: \(setting)") }
        let notifier = SystemdNotifier(environment: environment)
        let listenAddress: ListenAddress
        do {
            listenAddress = try ListenAddress.choose(socketPath: configuration.socketPath, passed: ListenFDs.adopt())
        } catch {
            throw DaemonStartError.passedSocketUnusable(error)
        }
        // In cluster mode the space is in etcd: no database file.
        var files = configuration.cluster == nil ? [configuration.databasePath] : []
        if case .path(let path) = listenAddress { files.append(path) }
        do {
            try Directories.prepare(for: files, uid: getuid())
        } catch {
            throw DaemonStartError.directoryUnusable(error)
        }
        // The socket first: a refused start creates no database file.
        if case .path(let path) = listenAddress { try Exclusivity.checkSocketFree(path) }
        if configuration.cluster == nil { try Exclusivity.lockDatabase(configuration.databasePath, pid: getpid()) }

        let opened = try await OpenedStore.open(configuration)
        let store = opened.store
        // A batch's answers and events wake each event loop once.
        store.answerBatches(within: { LoopMailbox.holdingWakeups($0) })
        let hub = SubscriptionHub(encoder: IOPropdInterface.eventFrameEncoder)
        let service: PropertyService
        do {
            // A cluster node fires deadlines only while it holds the timer election.
            service = try PropertyService(
                store: store, hub: hub, bindingLimits: configuration.limits.bindingLimits,
                firesTimers: opened.cluster == nil, logger: logger)
        } catch {
            throw DaemonStartError.serviceUnstartable(error)
        }
        // Before any client: none may see an execution the crash ended.
        await service.endInterruptedExecutions()
        let reloader = Reloader(
            service: service, flags: flags, environment: environment, current: configuration, logger: logger)
        await reloader.loadBindingFiles(from: configuration.bindingsDirectory)

        let serverReference = ServerReference()
        var interface = IOPropdInterface(
            service: service,
            limits: InterfaceLimits(patternsPerSubscription: configuration.limits.maxPatternsPerSubscription),
            access: reloader.access,
            connections: { serverReference.connectionCount })
        interface.runReload = { await reloader.reload() }
        if let cluster = configuration.cluster {
            let endpoints = cluster.endpoints.map(\.description)
            interface.nodeRole = { .cluster(etcdEndpoints: endpoints, timerHolder: service.firesTimers) }
        }
        let address: VarlinkBindAddress
        switch listenAddress {
        case .path(let path): address = .path(path)
        case .activated(let fd, _): address = .activated(fileDescriptor: fd)
        }
        var serverConfiguration = VarlinkServerConfiguration()
        serverConfiguration.maximumMessageSize = configuration.limits.maxMessageBytes
        serverConfiguration.maximumConnections = configuration.limits.maxConnections
        serverConfiguration.maximumConnectionsPerUser = configuration.limits.maxConnectionsPerUID
        serverConfiguration.unlimitedUsers = [0]  // root is never locked out
        serverConfiguration.maximumPartialMessageBytes = configuration.limits.maxPartialMessageBytes
        serverConfiguration.messageTimeout = .seconds(configuration.limits.maxMessageSeconds)
        serverConfiguration.eventLoopCount = Self.servingLoopCount
        serverConfiguration.protocolViolationReply = { violation in
            if case .messageTooLarge(let limit) = violation {
                // Named as the config key, as docs/service.md promises.
                return VarlinkCallError(.limitExceeded(limit: "max-message-bytes", maximum: limit))
            }
            if case .partialMessagesOverLimit(let limit) = violation {
                return VarlinkCallError(.limitExceeded(limit: "max-partial-message-bytes", maximum: limit))
            }
            return VarlinkCallError(
                name: "org.varlink.service.InvalidParameter",
                parameters: ["parameter": "message", "reason": .string(violation.description)])
        }
        let server: VarlinkServer
        do {
            server = try VarlinkServer(
                address: address,
                info: VarlinkServiceInfo(
                    vendor: "propd", product: "propd", version: PropdVersion.current, url: "https://propd.invalid"),
                interfaces: [interface.varlinkInterface],
                configuration: serverConfiguration,
                logger: logger)
        } catch {
            throw DaemonStartError.interfaceUnregistrable(error)
        }
        serverReference.set(server)
        reloader.onServerSettings { [server, interface] new in
            server.updateLimits(
                maximumConnections: new.limits.maxConnections,
                maximumConnectionsPerUser: new.limits.maxConnectionsPerUID,
                maximumPartialMessageBytes: new.limits.maxPartialMessageBytes,
                messageTimeout: .seconds(new.limits.maxMessageSeconds))
            interface.updateLimits(InterfaceLimits(patternsPerSubscription: new.limits.maxPatternsPerSubscription))
        }

        let supervisor = Supervisor(
            server: server, service: service, reloader: reloader, notifier: notifier,
            watchdog: Watchdog(environment: environment, pid: getpid()),
            socketDescription: listenAddress.description, logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(
                        service: VarlinkServerService(server: server) {
                            notifier.send(NotifyMessage.stopping)
                            logger.notice("stopping: finishing in-flight calls")
                            service.shutdown()
                        }),
                    .init(service: supervisor, successTerminationBehavior: .ignore),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        let campaign = opened.cluster.map { TimerCampaign(cluster: $0, service: service, logger: logger) }
        let relay = opened.cluster.map { cluster in
            let relay = EtcdCommandRelay(
                etcd: cluster.etcd, prefix: cluster.settings.prefix, leaseSeconds: Int64(cluster.settings.leaseSeconds),
                logger: logger)
            service.attach(relay)
            return Task { await relay.run(for: service) }
        }
        return StartedDaemon(group: group, opened: opened, timerCampaign: campaign, commandRelay: relay, logger: logger)
    }
}

/// A daemon that has taken its socket and its store (``Daemon/start(configuration:flags:environment:logger:)``).
public struct StartedDaemon: Sendable {
    let group: ServiceGroup
    let opened: OpenedStore
    /// A cluster node's part in the timer election.
    let timerCampaign: TimerCampaign?
    /// A cluster node's command relay, running until the stop.
    let commandRelay: Task<Void, Never>?
    let logger: Logger

    /// Serves until SIGTERM or SIGINT: then stops accepting, finishes and
    /// acknowledges in-flight writes, ends subscriptions, closes the store.
    ///
    /// - Throws: what the service group's run throws.
    public func run() async throws {
        try await group.run()
        await timerCampaign?.stop()
        commandRelay?.cancel()
        await commandRelay?.value
        await opened.finish(logger)
        let store = opened.store
        let writes = store.statistics
        logger.notice("stopped", metadata: [
            "revision": "\(store.revision)", "transactions": "\(writes.batches)",
            "transactions_on_event_loops": "\(writes.inlineBatches)", "requests": "\(writes.requests)",
            "largest_transaction": "\(writes.largestBatch)", "checkpoints": "\(writes.backgroundCheckpoints)",
        ])
    }
}

extension Daemon {
    /// The Varlink server's event loops: one per core but one, the core left
    /// to the store's writer, a thread of its own that is busy whenever clients
    /// pipeline. On two cores that is one loop, which also commits each tick's
    /// lone writes itself (``PropertyStore/tickCommitLimit``): no thread hands
    /// a Set to another and back, as in the C floor server's one thread. Against
    /// two loops (BENCHMARKS.md, "Why the write path is built this way"): 22%
    /// more Sets/s from the shared kit's 16 connections and 30% less CPU per
    /// Set with one in flight on each, 5% fewer pipelined Sets/s.
    static let servingLoopCount = max(1, System.coreCount - 1)
}

/// The version GetInfo reports.
public enum PropdVersion {
    public static let current = "0.1.0"
}
