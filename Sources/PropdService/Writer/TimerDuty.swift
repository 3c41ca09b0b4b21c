import Synchronization

/// Whether this process fires the property space's deadlines (time
/// operators, expiring keys). A daemon alone on its database always does; a
/// cluster node does only while it holds the cluster's timer election, so
/// each deadline fires on one node.
///
/// Firing is a write like any other: on a cluster store, a fire whose
/// operator state or expiring key another node changed meanwhile fails its
/// compares and runs again on the newer space, where nothing is due any
/// more. So a node that lost the election without knowing it yet cannot
/// make a deadline fire twice; the duty only keeps the other nodes from
/// trying.
final class TimerDuty: Sendable {
    private let held: Atomic<Bool>
    /// A resynchronizing fire is queued and has not started: another
    /// request for one adds nothing.
    private let resyncQueued = Atomic<Bool>(false)

    init(holds: Bool) {
        held = Atomic(holds)
    }

    var isHeld: Bool { held.load(ordering: .acquiring) }

    /// Returns whether the duty was held before.
    func set(_ holds: Bool) -> Bool {
        held.exchange(holds, ordering: .acquiringAndReleasing)
    }

    /// Whether a resynchronizing fire should be queued now (none is yet).
    func claimResync() -> Bool {
        !resyncQueued.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// A fire is about to read the space: a change from now on queues another.
    func resyncStarted() {
        resyncQueued.store(false, ordering: .releasing)
    }
}

extension PropertyService {
    /// Whether this process fires the space's deadlines now (always alone;
    /// in a cluster, while it holds the timer election).
    public var firesTimers: Bool { timerDuty.isHeld }

    /// Gives this node the duty of firing the space's deadlines, or takes it
    /// away (a cluster node that won or lost the timer election). On taking
    /// it, everything that came due meanwhile fires at once, from the
    /// space as etcd has it, and the timer is armed for what is pending.
    public func setFiresTimers(_ fires: Bool) {
        let held = timerDuty.set(fires)
        guard fires, !held else { return }
        Task { await fireDueTimers() }
    }

    /// Another node changed bindings, operator state, expiries or commands.
    /// The node that fires the deadlines reads them now: the new ones are
    /// armed, and those the other node replaced are forgotten.
    public func spaceChangedElsewhere() {
        guard timerDuty.isHeld, timerDuty.claimResync() else { return }
        Task { await fireDueTimers() }
    }
}
