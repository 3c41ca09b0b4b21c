import Foundation
import Logging
import PropdCluster
import PropdEtcd
import PropdService

/// A cluster node's part in the timer election (``TimerElection``), from
/// the daemon's start to its stop: while the node holds the election, its
/// service fires the space's deadlines; a deadline set on another node
/// reaches it through the mirror.
final class TimerCampaign: Sendable {
    private let task: Task<Void, Never>
    private let storage: EtcdPropertyStorage

    init(cluster: OpenedStore.ClusterStore, service: PropertyService, logger: Logger) {
        storage = cluster.storage
        // Both hold the service until stop() (the daemon's whole run).
        cluster.storage.onForeignEngineChange { service.spaceChangedElsewhere() }
        let election = TimerElection(
            prefix: cluster.settings.prefix, holder: Self.holderName, ttl: Int64(cluster.settings.leaseSeconds))
        let name = String(decoding: election.name, as: UTF8.self)
        task = Task {
            await election.run(on: cluster.etcd) { holds in
                guard service.firesTimers != holds else { return }
                service.setFiresTimers(holds)
                if holds {
                    logger.notice("holding the timer election: this node fires the deadlines", metadata: ["election": "\(name)"])
                } else {
                    logger.notice("no longer holding the timer election", metadata: ["election": "\(name)"])
                }
            }
        }
    }

    /// Leaves the election (revoking its lease, so another node takes the
    /// deadlines over at once); returns when it has.
    func stop() async {
        task.cancel()
        await task.value
        storage.onForeignEngineChange(nil)
    }

    /// What the holder announces: `HOST pid PID`.
    static var holderName: String {
        "\(HostName.current) pid \(getpid())"
    }
}
