import Logging
import PropdCore
import PropdService
import PropdVarlink
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The access rules in force, swapped as a whole by a reload.
final class ReloadableAccess: AccessCheck {
    private let current: Mutex<PolicyAccessCheck>
    private let changes = Atomic<UInt64>(0)

    init(_ policy: AccessPolicy) { current = Mutex(PolicyAccessCheck(policy: policy)) }

    func replace(_ policy: AccessPolicy) {
        current.withLock { $0 = PolicyAccessCheck(policy: policy) }
        changes.add(1, ordering: .releasing)
    }

    var generation: UInt64 { changes.load(ordering: .acquiring) }

    func allows(_ right: AccessRight, _ key: Key, _ peer: VarlinkPeerCredentials?) -> Bool {
        current.withLock { $0 }.allows(right, key, peer)
    }

    func filtersReads(for peer: VarlinkPeerCredentials?) -> Bool {
        current.withLock { $0 }.filtersReads(for: peer)
    }

    func mayReadSome(_ pattern: KeyPattern, _ peer: VarlinkPeerCredentials?) -> Bool {
        current.withLock { $0 }.mayReadSome(pattern, peer)
    }
}

/// SIGHUP: reads the configuration and the binding files again. A bad config
/// or a bad binding file is logged and changes nothing.
final class Reloader: Sendable {
    let service: PropertyService
    let flags: DaemonFlags
    let environment: [String: String]
    let access: ReloadableAccess
    private let configuration: Mutex<DaemonConfiguration>
    let logger: Logger

    init(
        service: PropertyService, flags: DaemonFlags, environment: [String: String], current: DaemonConfiguration,
        logger: Logger
    ) {
        self.service = service
        self.flags = flags
        self.environment = environment
        self.access = ReloadableAccess(current.access)
        self.configuration = Mutex(current)
        self.logger = logger
    }

    var current: DaemonConfiguration { configuration.withLock { $0 } }

    /// Applies the binding files of `directory`; reports every problem.
    func loadBindingFiles(from directory: String) async {
        let files = BindingDirectory.read(directory)
        for (file, failure) in files.failures.sorted(by: { $0.key < $1.key }) {
            logger.error("binding file not applied", metadata: ["file": "\(file)", "error": "\(failure)"])
        }
        do {
            let reload = try await service.applyBindingFiles(files)
            if let revision = reload.revision {
                logger.notice(
                    "binding files applied",
                    metadata: [
                        "directory": "\(directory)", "declared": "\(reload.declared.count)",
                        "removed": "\(reload.removed.count)", "revision": "\(revision)",
                    ])
            }
        } catch {
            logger.error("binding files not applied", metadata: ["directory": "\(directory)", "error": "\(error)"])
        }
    }

    /// Reloads the configuration (access rules, limits that can change live)
    /// and then the binding files.
    func reload() async {
        let old = current
        do {
            let loaded = try DaemonConfiguration.load(environment: environment, uid: getuid(), flags: flags)
            let (new, kept) = old.reloaded(to: loaded)
            if !kept.isEmpty {
                logger.warning("restart propd to change these settings", metadata: ["settings": "\(kept)"])
            }
            access.replace(new.access)
            configuration.withLock { $0 = new }
            logger.notice("configuration reloaded", metadata: ["file": "\(new.configFile ?? "none")"])
        } catch {
            logger.error("configuration not reloaded; keeping the old one", metadata: ["error": "\(error)"])
        }
        await loadBindingFiles(from: current.bindingsDirectory)
    }
}
