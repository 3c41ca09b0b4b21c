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

    init(_ policy: AccessPolicy) { current = Mutex(PolicyAccessCheck(policy: policy)) }

    func replace(_ policy: AccessPolicy) { current.withLock { $0 = PolicyAccessCheck(policy: policy) } }

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

    /// Applies the binding files of `directory`; logs and returns every
    /// problem as `FILE:LINE:COLUMN: message` (a file with one changes nothing).
    @discardableResult
    func loadBindingFiles(from directory: String) async -> [String] {
        let (reload, errors) = await service.applyBindingFiles(BindingDirectory.read(directory), reportingUnder: directory)
        for error in errors {
            logger.error("binding file not applied", metadata: ["error": "\(error)"])
        }
        if let revision = reload.revision {
            logger.notice(
                "binding files applied",
                metadata: [
                    "directory": "\(directory)", "declared": "\(reload.declared.count)",
                    "removed": "\(reload.removed.count)", "revision": "\(revision)",
                ])
        }
        return errors
    }

    /// Reloads the configuration (access rules, limits that can change live)
    /// and then the binding files; returns the errors of both.
    @discardableResult
    func reload() async -> ReloadOutcome {
        let old = current
        var outcome = ReloadOutcome(revision: service.store.revision)
        do {
            let loaded = try DaemonConfiguration.load(environment: environment, uid: getuid(), flags: flags)
            let (new, kept) = old.reloaded(to: loaded)
            if !kept.isEmpty {
                logger.warning("restart propd to change these settings", metadata: ["settings": "\(kept)"])
                outcome.refused = kept
            }
            access.replace(new.access)
            configuration.withLock { $0 = new }
            logger.notice("configuration reloaded", metadata: ["file": "\(new.configFile ?? "none")"])
        } catch {
            logger.error("configuration not reloaded; keeping the old one", metadata: ["error": "\(error)"])
            outcome.errors.append("\(error)")
        }
        outcome.errors += await loadBindingFiles(from: current.bindingsDirectory)
        outcome.revision = service.store.revision
        return outcome
    }
}
