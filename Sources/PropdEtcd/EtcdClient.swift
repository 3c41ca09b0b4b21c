import EtcdAPI
import GRPCCore
public import NIOCore
import NIOPosix
import Synchronization

/// A client of an etcd v3 cluster over several members.
///
/// ```swift
/// let etcd = try EtcdClient(.init(endpoints: EtcdEndpoint.list("http://h1:2379,http://h2:2379")))
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await etcd.run() }
///     let put = try await etcd.put(Array("/app/a".utf8), Array("1".utf8))
///     print(put.revision)
///     etcd.shutdown()
/// }
/// ```
///
/// Requests go to one member and move to the next when it is down or has no
/// leader, retrying for up to `Configuration.unavailableAfter` before they
/// fail with ``EtcdError/Code/unavailable``. A write that may have been
/// applied is never replayed: it fails with ``EtcdError/Code/outcomeUnknown``.
public final class EtcdClient: Sendable {
    public struct Configuration: Sendable {
        public var endpoints: [EtcdEndpoint]
        /// How long one attempt of a unary request may take on one member.
        public var requestTimeout: Duration = .seconds(5)
        /// How long the cluster may stay unreachable (members down, an
        /// election under way) before a request fails with `unavailable`.
        public var unavailableAfter: Duration = .seconds(5)
        /// The longest pause between two connection attempts to a member.
        public var reconnectAfterAtMost: Duration = .seconds(1)
        /// The threads the connections run on; `nil`: NIO's shared group.
        /// A program that waits for etcd on a thread of the shared group
        /// (a synchronous handler) gives the client a group of its own, so
        /// the connection it waits for is never on the thread it blocks.
        public var eventLoopGroup: (any EventLoopGroup)?

        public init(endpoints: [EtcdEndpoint]) {
            self.endpoints = endpoints
        }
    }

    public let configuration: Configuration
    /// The event loop the connections for transactions and watches live on
    /// (each member's JSON gateway and its ``LoopGRPCConnection``): code
    /// running on it sends transactions and reads their replies without a
    /// thread hand-over (``txnFuture(_:success:failure:)``), and watches
    /// deliver their updates on it.
    public let transactionLoop: any EventLoop
    let members: [EtcdMember]
    /// The member requests go to first: the last one that answered.
    private let preferred = Mutex(0)

    public init(_ configuration: Configuration) throws {
        guard !configuration.endpoints.isEmpty else {
            throw EtcdError(.invalidEndpoint, "no etcd endpoint given")
        }
        self.configuration = configuration
        let group = configuration.eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        let transactionLoop = group.next()
        self.transactionLoop = transactionLoop
        members = try configuration.endpoints.map {
            try EtcdMember(
                $0, reconnectAfterAtMost: configuration.reconnectAfterAtMost,
                requestTimeout: configuration.requestTimeout, eventLoopGroup: group, transactionLoop: transactionLoop)
        }
    }

    /// Runs the connections to every member; returns after ``shutdown()``
    /// once requests in flight have finished, or when its task is cancelled.
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for member in members {
                group.addTask { try await member.runConnections() }
            }
        }
    }

    /// Lets requests in flight finish, refuses new ones, and ends ``run()``.
    public func shutdown() {
        for member in members { member.shutdown() }
    }

    /// The member to try first, and the order to try the others in.
    func memberOrder() -> [EtcdMember] {
        let first = preferred.withLock { $0 }
        return (0..<members.count).map { members[(first + $0) % members.count] }
    }

    func prefer(_ member: EtcdMember) {
        guard let index = members.firstIndex(where: { $0.endpoint == member.endpoint }) else { return }
        preferred.withLock { $0 = index }
    }

    /// A request's: bounded by ``Configuration/requestTimeout``.
    var callOptions: CallOptions {
        var options = streamOptions
        options.timeout = configuration.requestTimeout
        return options
    }

    /// A long-lived call's (a watch, a keep-alive, a campaign): no time
    /// bound, and failing at once on a member it cannot reach, so the
    /// caller moves on to the next.
    var streamOptions: CallOptions {
        var options = CallOptions.defaults
        options.waitForReady = false
        return options
    }
}

/// Runs `body` with a client of the cluster whose connections live exactly
/// as long as the call.
///
/// ```swift
/// let value = try await withEtcdClient(.init(endpoints: endpoints)) { etcd in
///     try await etcd.range(.key(Array("/app/a".utf8))).keyValues.first?.value
/// }
/// ```
public func withEtcdClient<Result: Sendable>(
    _ configuration: EtcdClient.Configuration,
    _ body: (EtcdClient) async throws -> Result
) async throws -> Result {
    let client = try EtcdClient(configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await client.run() }
        do {
            let result = try await body(client)
            client.shutdown()
            try await group.waitForAll()
            return result
        } catch {
            group.cancelAll()
            throw error
        }
    }
}
