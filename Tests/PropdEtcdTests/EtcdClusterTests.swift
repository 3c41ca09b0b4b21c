import EtcdTestSupport
import Testing

/// Every suite that starts an etcd cluster, one test at a time: three
/// members per test is what a small CI machine runs without elections
/// timing out under load.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct EtcdClusterTests {}
