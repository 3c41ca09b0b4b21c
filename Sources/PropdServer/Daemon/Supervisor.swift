import Logging
import PropdService
import PropdVarlink
import ServiceLifecycle
import UnixSignals

/// Tells systemd how the daemon is (READY=1 once it serves, STATUS lines,
/// WATCHDOG=1 while the writer answers) and turns SIGHUP into a reload.
struct Supervisor: Service {
    let server: VarlinkServer
    let service: PropertyService
    let reloader: Reloader
    let notifier: SystemdNotifier
    let watchdog: Watchdog?
    let socketDescription: String
    let logger: Logger

    func run() async throws {
        // Trap SIGHUP before READY=1: systemd may send a reload as soon as
        // it sees READY, and SIGHUP's default action would end propd.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try await server.listening()
        notifier.send(NotifyMessage.ready(status: status()))
        logger.notice("serving", metadata: ["socket": "\(socketDescription)", "revision": "\(service.store.revision)"])
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in hangups {
                        notifier.send(NotifyMessage.reloading)
                        _ = await reloader.reload()
                        notifier.send(NotifyMessage.ready(status: status()))
                    }
                }
                if let watchdog {
                    group.addTask {
                        // The pings come from a round trip through the writer:
                        // if the writer hangs, they stop and systemd restarts propd.
                        while !Task.isCancelled {
                            try? await Task.sleep(for: watchdog.pingInterval)
                            if await service.probeWriter() { notifier.send(NotifyMessage.watchdog) }
                        }
                    }
                }
                if notifier.isEnabled {
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: .seconds(10))
                            notifier.send(NotifyMessage.status(status()))
                        }
                    }
                }
                await group.waitForAll()
            }
        }
    }

    func status() -> String {
        let figures = try? service.statistics()
        return ServiceStatus(
            socket: socketDescription, keys: figures?.keys ?? 0, bindings: figures?.bindings ?? 0,
            connections: server.connectionCount, subscriptions: figures?.subscriptions ?? 0,
            revision: figures?.revision.rawValue ?? 0
        ).line
    }
}
