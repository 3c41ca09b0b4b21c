import Logging
import NIOPosix
import PropdCluster
import PropdEtcd
import PropdStore

/// The store the daemon runs on: the SQLite file, or in cluster mode the
/// space in etcd, and how to close it at the end.
struct OpenedStore: Sendable {
    let store: any PropertyStorage
    /// Closes the store once the service stopped (checkpoints SQLite, ends
    /// the etcd connections).
    let finish: @Sendable (Logger) async -> Void
    /// In cluster mode, the space in etcd and the client it is read through.
    var cluster: ClusterStore?

    /// A cluster node's store and its etcd client.
    struct ClusterStore: Sendable {
        let storage: EtcdPropertyStorage
        let etcd: EtcdClient
        let settings: ClusterSettings
    }

    static func open(_ configuration: DaemonConfiguration) async throws(DaemonStartError) -> OpenedStore {
        let storeConfiguration = StoreConfiguration(
            durability: configuration.durability == .full ? .full : .normal,
            historyPerKey: configuration.historyPerKey)
        guard let cluster = configuration.cluster else {
            let store: PropertyStore
            do {
                store = try PropertyStore(path: configuration.databasePath, configuration: storeConfiguration)
            } catch {
                throw DaemonStartError.databaseUnopenable(error)
            }
            return OpenedStore(store: store) { logger in
                store.close()
                do {
                    try store.checkpoint()
                } catch {
                    logger.error(
                        "the write-ahead log was not checkpointed; it is replayed at the next start",
                        metadata: ["error": "\(error)"])
                }
            }
        }
        // Handlers read etcd's history synchronously on the server's event
        // loops: the etcd connections run on a thread of their own.
        let threads = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var etcdConfiguration = EtcdClient.Configuration(endpoints: cluster.endpoints)
        etcdConfiguration.eventLoopGroup = threads
        let client: EtcdClient
        do {
            client = try EtcdClient(etcdConfiguration)
        } catch {
            threads.shutdownGracefully { _ in }
            throw DaemonStartError.etcdEndpointsUnusable(
                endpoints: cluster.endpoints.map(\.description), reason: "\(error)")
        }
        // run() ends when the connections are cancelled or shut down; it throws nothing else to act on.
        let connections = Task<Void, Never> { _ = try? await client.run() }
        do {
            let store = try await EtcdPropertyStorage.open(etcd: client, prefix: cluster.prefix, configuration: storeConfiguration)
            return OpenedStore(
                store: store,
                finish: { _ in
                    store.close()
                    // The writer runs on the etcd client's loop: it finishes first.
                    await store.closed()
                    await end(connections, of: client, on: threads)
                },
                cluster: ClusterStore(storage: store, etcd: client, settings: cluster))
        } catch {
            await end(connections, of: client, on: threads)
            throw DaemonStartError.etcdSpaceUnreadable(
                prefix: cluster.prefix, endpoints: cluster.endpoints.map(\.description), cause: error)
        }
    }

    /// Ends the etcd connections, then their threads: a connection still
    /// being made when its loop shuts down leaks a promise (NIO traps on it
    /// in debug builds).
    private static func end(
        _ connections: Task<Void, Never>, of client: EtcdClient, on threads: MultiThreadedEventLoopGroup
    ) async {
        client.shutdown()
        connections.cancel()
        await connections.value
        // Fails only for a group already shut down; this one is shut down here alone.
        try? await threads.shutdownGracefully()
    }
}
