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
    let finish: @Sendable (Logger) -> Void

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
        let connections = Task { try? await client.run() }
        do {
            let store = try await EtcdPropertyStorage.open(etcd: client, prefix: cluster.prefix, configuration: storeConfiguration)
            return OpenedStore(store: store) { _ in
                store.close()
                connections.cancel()
                threads.shutdownGracefully { _ in }
            }
        } catch {
            connections.cancel()
            threads.shutdownGracefully { _ in }
            throw DaemonStartError.etcdSpaceUnreadable(
                prefix: cluster.prefix, endpoints: cluster.endpoints.map(\.description), cause: error)
        }
    }
}
