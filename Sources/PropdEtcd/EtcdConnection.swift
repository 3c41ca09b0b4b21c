import EtcdAPI
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOCore

/// One gRPC client (one HTTP/2 connection at a time) to one etcd member and
/// the service stubs over it.
struct EtcdConnection: Sendable {
    typealias Transport = HTTP2ClientTransport.Posix

    /// Counts the connections of one member, so a retired one is told apart.
    let generation: Int
    let endpoint: EtcdEndpoint
    let grpc: GRPCClient<Transport>
    let kv: Etcdserverpb_KV.Client<Transport>
    let watch: Etcdserverpb_Watch.Client<Transport>
    let lease: Etcdserverpb_Lease.Client<Transport>
    let maintenance: Etcdserverpb_Maintenance.Client<Transport>
    let election: V3electionpb_Election.Client<Transport>

    init(
        _ endpoint: EtcdEndpoint, generation: Int, reconnectAfterAtMost: Duration,
        eventLoopGroup: any EventLoopGroup
    ) throws {
        self.endpoint = endpoint
        self.generation = generation
        // A member that comes back must be found again within the client's
        // retry bound, not after gRPC's default backoff of up to two minutes.
        let config = Transport.Config.defaults { config in
            config.backoff.initial = .milliseconds(100)
            config.backoff.max = reconnectAfterAtMost
        }
        let transport =
            if endpoint.host.contains(":") {
                try Transport(
                    target: .ipv6(address: endpoint.host, port: endpoint.port), transportSecurity: .plaintext,
                    config: config, eventLoopGroup: eventLoopGroup)
            } else if endpoint.host.allSatisfy({ $0.isNumber || $0 == "." }) {
                try Transport(
                    target: .ipv4(address: endpoint.host, port: endpoint.port), transportSecurity: .plaintext,
                    config: config, eventLoopGroup: eventLoopGroup)
            } else {
                try Transport(
                    target: .dns(host: endpoint.host, port: endpoint.port), transportSecurity: .plaintext,
                    config: config, eventLoopGroup: eventLoopGroup)
            }
        grpc = GRPCClient(transport: transport)
        kv = Etcdserverpb_KV.Client(wrapping: grpc)
        watch = Etcdserverpb_Watch.Client(wrapping: grpc)
        lease = Etcdserverpb_Lease.Client(wrapping: grpc)
        maintenance = Etcdserverpb_Maintenance.Client(wrapping: grpc)
        election = V3electionpb_Election.Client(wrapping: grpc)
    }
}
