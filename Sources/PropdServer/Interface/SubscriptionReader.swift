import PropdCore
import PropdVarlink
import Synchronization

/// Who reads a subscription, and what the access rules in force let them
/// see of it. Asked again for every batch of events, so a reload that
/// narrows the rules applies to subscriptions opened before it.
final class SubscriptionReader: Sendable {
    let access: any AccessCheck
    let peer: VarlinkPeerCredentials?
    let patterns: [KeyPattern]
    /// The rules' generation the patterns were last checked against.
    private let checked: Atomic<UInt64>
    /// Whether the peer's reads are restricted at all, under the rules of
    /// generation `checked` or newer.
    private let filters: Atomic<Bool>

    init(access: any AccessCheck, peer: VarlinkPeerCredentials?, patterns: [KeyPattern]) {
        self.access = access
        self.peer = peer
        self.patterns = patterns
        // The generation first: rules replaced in between are checked again.
        checked = Atomic(access.generation)
        filters = Atomic(access.filtersReads(for: peer))
    }

    /// Whether the peer's reads are restricted at all, under the rules of
    /// the last ``deniedPattern()`` (each batch asks it first): asking the
    /// rules takes their lock, which a batch of events need not pay.
    var filtersReads: Bool { filters.load(ordering: .relaxed) }

    /// Whether the peer may read the key of an event (`""` is `synced`).
    func mayRead(_ key: String) -> Bool {
        key.isEmpty || ((try? Key(key)).map { access.allows(.read, $0, peer) } ?? false)
    }

    /// After the rules changed: the first pattern, when the peer may read
    /// nothing any of them matches (the subscription ends with
    /// `PermissionDenied`); nil while it may read something.
    func deniedPattern() -> String? {
        let generation = access.generation
        guard checked.load(ordering: .relaxed) != generation else { return nil }
        checked.store(generation, ordering: .relaxed)
        filters.store(access.filtersReads(for: peer), ordering: .relaxed)
        if patterns.contains(where: { access.mayReadSome($0, peer) }) { return nil }
        return patterns.first?.rawValue ?? ""
    }
}
