import Foundation
public import Logging
import PropdService
import PropdStore
import PropdVarlink
import ServiceLifecycle

/// Why the daemon could not start; it exits non-zero with this message.
public struct DaemonStartError: Error, CustomStringConvertible {
    public var description: String
}

/// propd assembled: store, service, io.propd on a Varlink server, systemd
/// notification, SIGHUP reload and SIGTERM graceful stop.
public enum Daemon {
    /// Runs until SIGTERM or SIGINT: then stops accepting, finishes and
    /// acknowledges in-flight writes, ends subscriptions, closes the database.
    public static func run(
        configuration: DaemonConfiguration, flags: DaemonFlags, environment: [String: String], logger: Logger
    ) async throws {
        let notifier = SystemdNotifier(environment: environment)
        let listenFDs = ListenFDs.adopt()
        if listenFDs == nil {
            try prepareDirectory(for: configuration.socketPath, logger: logger)
        }
        try prepareDirectory(for: configuration.databasePath, logger: logger)

        let store: PropertyStore
        do {
            store = try PropertyStore(
                path: configuration.databasePath,
                configuration: StoreConfiguration(
                    durability: configuration.durability == .full ? .full : .normal,
                    historyPerKey: configuration.historyPerKey))
        } catch {
            throw DaemonStartError(description: "cannot open the database: \(error)")
        }
        let hub = SubscriptionHub(encoder: IOPropdInterface.eventParametersEncoder)
        let service: PropertyService
        do {
            service = try PropertyService(store: store, hub: hub, logger: logger)
        } catch {
            throw DaemonStartError(description: "cannot start the service: \(error)")
        }
        let reloader = Reloader(
            service: service, flags: flags, environment: environment, current: configuration, logger: logger)
        await reloader.loadBindingFiles(from: configuration.bindingsDirectory)

        let serverReference = ServerReference()
        let interface = IOPropdInterface(
            service: service,
            limits: InterfaceLimits(
                subscriptionsPerConnection: configuration.limits.maxSubscriptionsPerConnection,
                patternsPerSubscription: configuration.limits.maxPatternsPerSubscription),
            access: reloader.access,
            connections: { serverReference.connectionCount })
        let address: VarlinkBindAddress
        if let listenFDs, let fd = listenFDs.descriptors.first {
            address = .activated(fileDescriptor: fd)
        } else {
            address = .path(configuration.socketPath)
        }
        var serverConfiguration = VarlinkServerConfiguration()
        serverConfiguration.maximumMessageSize = configuration.limits.maxMessageBytes
        serverConfiguration.maximumConnections = configuration.limits.maxConnections
        serverConfiguration.protocolViolationReply = { violation in
            if case .messageTooLarge(let limit) = violation {
                return WireCoding.limitExceeded("maxMessageBytes", maximum: limit)
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
            throw DaemonStartError(description: "cannot register io.propd: \(error)")
        }
        serverReference.set(server)

        let supervisor = Supervisor(
            server: server, service: service, reloader: reloader, notifier: notifier,
            watchdog: Watchdog(environment: environment, pid: getpid()),
            socketDescription: listenFDs == nil ? configuration.socketPath : "fd \(address)", logger: logger)
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
        try await group.run()
        store.close()
        logger.notice("stopped", metadata: ["revision": "\(store.revision)"])
    }

    /// Creates the directory that will hold `path` (mode 0700) when missing.
    static func prepareDirectory(for path: String, logger: Logger) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            logger.info("created directory", metadata: ["path": "\(directory)"])
        } catch {
            throw DaemonStartError(description: "cannot create \(directory): \(error.localizedDescription)")
        }
    }
}

/// The version GetInfo reports.
public enum PropdVersion {
    public static let current = "0.1.0"
}
