import EtcdTestSupport
import PropdCluster
import PropdCore
import PropdEtcd
import PropdStore
import Synchronization
import Testing

/// Starts a three-member etcd cluster and `count` storage nodes on it (each
/// with its own client, as separate propd processes would have), runs
/// `body`, then stops them.
func withNodes<Result: Sendable>(
    _ count: Int = 2,
    unavailableAfter: Duration = .seconds(5),
    prefix: String = "/propd/test",
    _ body: (EtcdCluster, [EtcdPropertyStorage]) async throws -> Result
) async throws -> Result {
    let cluster = try EtcdCluster(members: 3)
    var configuration = EtcdClient.Configuration(endpoints: try cluster.clientURLs.map { try EtcdEndpoint($0) })
    configuration.unavailableAfter = unavailableAfter
    let clients = try (0..<count).map { _ in try EtcdClient(configuration) }
    return try await withThrowingTaskGroup(of: Void.self) { group in
        for client in clients { group.addTask { try await client.run() } }
        defer { group.cancelAll() }
        var nodes: [EtcdPropertyStorage] = []
        for client in clients { nodes.append(try await EtcdPropertyStorage.open(etcd: client, prefix: prefix)) }
        defer { for node in nodes { node.close() } }
        return try await body(cluster, nodes)
    }
}

/// One more node on a running cluster, for as long as `body` runs.
func withNode<Result: Sendable>(
    _ cluster: EtcdCluster, prefix: String = "/propd/test",
    _ body: (EtcdPropertyStorage) async throws -> Result
) async throws -> Result {
    let configuration = EtcdClient.Configuration(endpoints: try cluster.clientURLs.map { try EtcdEndpoint($0) })
    let client = try EtcdClient(configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await client.run() }
        defer { group.cancelAll() }
        let node = try await EtcdPropertyStorage.open(etcd: client, prefix: prefix)
        defer { node.close() }
        return try await body(node)
    }
}

extension EtcdPropertyStorage {
    /// One write request, awaited.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (inout WriteTransaction) throws -> T
    ) async throws -> Committed<T> {
        try await withCheckedThrowingContinuation { continuation in
            submit(WriteSubmission(body, origin: .task) { continuation.resume(with: $0) })
        }
    }

    /// `Set` of plain values.
    @discardableResult
    func set(_ values: [String: JSONValue]) async throws -> Revision {
        let keyed = try values.map { (try Key($0.key), $0.value) }
        return try await write { transaction in
            for (key, value) in keyed { try transaction.set(key, value) }
        }.revision
    }

    /// The current value of `key`.
    func value(_ key: String) throws -> JSONValue? {
        try get([Key(key)]).properties.first??.value
    }
}

/// Collects what a node's commit observer gets, and waits for a revision.
final class CommitRecorder: Sendable {
    private let changeSets = Mutex<[ChangeSet]>([])
    private let stream: AsyncStream<Revision>
    private let continuation: AsyncStream<Revision>.Continuation

    init(_ node: EtcdPropertyStorage) {
        (stream, continuation) = AsyncStream.makeStream(of: Revision.self)
        node.onCommit { [self] sets in
            changeSets.withLock { $0 += sets }
            for set in sets { continuation.yield(set.revision) }
        }
    }

    var recorded: [ChangeSet] { changeSets.withLock { $0 } }

    /// Returns once a change set at `revision` or later was observed.
    func wait(for revision: Revision, timeout: Duration = .seconds(30)) async throws {
        if recorded.last.map({ $0.revision >= revision }) ?? false { return }
        let stream = self.stream
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await seen in stream where seen >= revision { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            let reached = try await group.next() ?? false
            if !reached && !(self.recorded.last.map { $0.revision >= revision } ?? false) {
                Issue.record("timed out waiting for revision \(revision)")
            }
        }
    }
}

/// A count shared by concurrent tasks, which one task can wait on.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    /// Every new count, in order, for ``reaches(_:within:)``.
    private let counts: AsyncStream<Int>
    private let newCount: AsyncStream<Int>.Continuation

    init() {
        (counts, newCount) = AsyncStream.makeStream()
    }

    func increment() {
        newCount.yield(count.add(1, ordering: .relaxed).newValue)
    }

    var value: Int { count.load(ordering: .relaxed) }

    /// Whether the count reaches `target` within `timeout`; one waiter at a time.
    func reaches(_ target: Int, within timeout: Duration) async -> Bool {
        let reached = try? await withDeadline(timeout, waitingFor: "the count \(target)") {
            for await count in self.counts where count >= target { return true }
            return false
        }
        return reached == true || value >= target
    }
}
