import Logging
import PropdCore
import PropdService
import PropdStore
import PropdVarlink
import PropdWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The access rules in force, swapped as a whole by a reload.
final class ReloadableAccess: AccessCheck {
    private let current: Mutex<PolicyAccessCheck>
    private let changes = Atomic<UInt64>(0)
    /// Whether the rules in force are none (everyone may do everything),
    /// as the daemon runs by default: then a check answers without the
    /// lock, which every key of every call would take.
    private let open: Atomic<Bool>

    init(_ policy: AccessPolicy) {
        current = Mutex(PolicyAccessCheck(policy: policy))
        open = Atomic(policy.isOpen)
    }

    func replace(_ policy: AccessPolicy) {
        current.withLock { $0 = PolicyAccessCheck(policy: policy) }
        open.store(policy.isOpen, ordering: .releasing)
        changes.add(1, ordering: .releasing)
    }

    var generation: UInt64 { changes.load(ordering: .acquiring) }

    func allows(_ right: AccessRight, _ key: Key, _ peer: VarlinkPeerCredentials?) -> Bool {
        if open.load(ordering: .acquiring) { return true }
        return current.withLock { $0 }.allows(right, key, peer)
    }

    func filtersReads(for peer: VarlinkPeerCredentials?) -> Bool {
        if open.load(ordering: .acquiring) { return false }
        return current.withLock { $0 }.filtersReads(for: peer)
    }

    func mayReadSome(_ pattern: KeyPattern, _ peer: VarlinkPeerCredentials?) -> Bool {
        if open.load(ordering: .acquiring) { return true }
        return current.withLock { $0 }.mayReadSome(pattern, peer)
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

    /// Applies the binding files of `directory`; logs and returns every
    /// problem as `FILE:LINE:COLUMN: message` (a file with one changes nothing).
    @discardableResult
    func loadBindingFiles(from directory: String) async -> [String] {
        var files = BindingDirectory.read(directory)
        // A cluster node's files are its own: it leaves other nodes' alone.
        if current.cluster != nil { files.owner = HostName.current + ":" + directory }
        let (reload, errors) = await service.applyBindingFiles(files, reportingUnder: directory)
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

    /// Reloads the configuration (every setting that can change live) and
    /// then the binding files; returns what it applied and refused and the
    /// errors of both.
    @discardableResult
    func reload() async -> ReloadReply {
        let old = current
        var outcome = ReloadReply(revision: service.store.revision)
        do {
            let loaded = try DaemonConfiguration.load(environment: environment, uid: getuid(), flags: flags)
            let (new, kept) = old.reloaded(to: loaded)
            outcome.refused = kept
            outcome.applied = old.settingsChangedLive(toBecome: new)
            apply(new)
            configuration.withLock { $0 = new }
            for setting in new.ignoredSettings { logger.warning("setting ignored: \(setting)") }
            if !kept.isEmpty {
                logger.warning("restart propd to change these settings", metadata: ["settings": "\(kept)"])
            }
            logger.notice(
                "configuration reloaded",
                metadata: [
                    "file": "\(new.configFile ?? "none")", "applied": "\(outcome.applied)", "refused": "\(kept)",
                ])
        } catch {
            logger.error("configuration not reloaded; keeping the old one", metadata: ["error": "\(error)"])
            outcome.errors.append("\(error)")
        }
        outcome.errors += await loadBindingFiles(from: current.bindingsDirectory)
        outcome.revision = service.store.revision
        return outcome
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
