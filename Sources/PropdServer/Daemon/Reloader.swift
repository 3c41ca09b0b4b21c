import Logging
import PropdCore
import PropdService
import PropdStore
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

/// SIGHUP (and the `Reload` call): reads the configuration and the binding
/// files again. Every setting that can change live is applied; those that
/// cannot (socket, database, durability, max-message-bytes) are refused and
/// keep their values until a restart. A bad config or a bad binding file is
/// reported and changes nothing.
final class Reloader: Sendable {
    let service: PropertyService
    let flags: DaemonFlags
    let environment: [String: String]
    let access: ReloadableAccess
    private let configuration: Mutex<DaemonConfiguration>
    /// Applies the live settings the service does not own (the server's and
    /// the interface's limits), once they exist.
    private let applyToServer = Mutex<(@Sendable (DaemonConfiguration) -> Void)?>(nil)
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

    /// Sets how a reload reaches the server and the interface.
    func onServerSettings(_ apply: @escaping @Sendable (DaemonConfiguration) -> Void) {
        applyToServer.withLock { $0 = apply }
    }

    /// Applies the binding files of `directory`; returns the revision it
    /// committed (nil when nothing changed) and every problem as
    /// `FILE:LINE:COLUMN: message`.
    @discardableResult
    func loadBindingFiles(from directory: String) async -> (revision: Revision?, errors: [String]) {
        let files = BindingDirectory.read(directory)
        var errors: [String] = []
        for (file, failure) in files.failures.sorted(by: { $0.key < $1.key }) {
            logger.error("binding file not applied", metadata: ["file": "\(file)", "error": "\(failure)"])
            errors.append(failure.hasPrefix(file) ? directory + "/" + failure : failure)
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
            return (reload.revision, errors)
        } catch {
            logger.error("binding files not applied", metadata: ["directory": "\(directory)", "error": "\(error)"])
            return (nil, errors + ["\(directory): \(error)"])
        }
    }

    /// Reloads the configuration (every setting that can change live) and
    /// then the binding files.
    func reload() async -> ReloadOutcome {
        let old = current
        var errors: [String] = []
        var applied: [String] = []
        var refused: [String] = []
        do {
            let loaded = try DaemonConfiguration.load(environment: environment, uid: getuid(), flags: flags)
            let (new, kept) = old.reloaded(to: loaded)
            refused = kept
            applied = old.settingsChangedLive(toBecome: new)
            apply(new)
            configuration.withLock { $0 = new }
            if !refused.isEmpty {
                logger.warning("restart propd to change these settings", metadata: ["settings": "\(refused)"])
            }
            logger.notice(
                "configuration reloaded",
                metadata: ["file": "\(new.configFile ?? "none")", "applied": "\(applied)", "refused": "\(refused)"])
        } catch {
            errors.append("\(error)")
            logger.error("configuration not reloaded; keeping the old one", metadata: ["error": "\(error)"])
        }
        let bindings = await loadBindingFiles(from: current.bindingsDirectory)
        errors += bindings.errors
        return ReloadOutcome(
            revision: bindings.revision ?? service.store.revision, errors: errors, applied: applied, refused: refused)
    }

    /// Puts the live settings of `new` in force.
    private func apply(_ new: DaemonConfiguration) {
        access.replace(new.access)
        service.setBindingLimits(new.limits.bindingLimits)
        service.store.setHistoryPerKey(new.historyPerKey)
        LogLevelControl.shared.level = new.logLevel
        applyToServer.withLock { $0 }?(new)
    }
}
