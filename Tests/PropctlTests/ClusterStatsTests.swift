import EtcdTestSupport
import Foundation
import PropdCore
import PropdTestSupport
import Testing

/// `propctl stats` of a cluster node on a real three-member etcd: its role,
/// its etcd endpoints and whether it holds the timer election.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterStatsTests {
    @Test func aClusterNodeShowsItsRoleEndpointsAndTheTimerElection() throws {
        let etcd = try EtcdCluster(members: 3)
        let endpoints = etcd.clientURLs.joined(separator: ",")
        let daemon = try PropdProcess(extraArguments: ["--etcd", endpoints, "--etcd-prefix", "/propd/stats"])

        // Alone on its prefix it wins the election; until then it says it does not hold it.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var json = try Propctl.run(["--json", "stats"], daemon: daemon).json
        while json["timerHolder"] != true, clock.now < deadline {
            #expect(json["timerHolder"] == false)
            // Polling pace for a state that has no event of its own; the loop ends on the state.
            Thread.sleep(forTimeInterval: 0.2)
            json = try Propctl.run(["--json", "stats"], daemon: daemon).json
        }
        #expect(json["role"] == "cluster")
        #expect(json["timerHolder"] == true)
        #expect(json["etcdEndpoints"] == .array(etcd.clientURLs.map { .string($0) }))

        let human = try Propctl.run(["stats"], daemon: daemon)
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.contains("role           cluster, holds the timer election\n"), "\(human)")
        #expect(human.stdout.contains("etcd           \(endpoints)\n"), "\(human)")
        #expect(human.stdout.contains("database       0 B\n"), "\(human)")
    }
}
