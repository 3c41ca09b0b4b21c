import Dispatch
import EtcdTestSupport
import PropdTestSupport
import Synchronization

/// A crash injected in one round of the fault check, then healed.
enum Fault: Sendable, CustomStringConvertible {
    /// One of three etcd members: writes go on.
    case etcdMember(Int)
    /// Two of three etcd members: no quorum, writes are `Unavailable`.
    case etcdQuorum(Int, Int)
    /// A propd node, SIGKILLed mid-traffic; its clients lose their calls in flight.
    case propdNode(Int)
    /// An etcd member and a propd node at once.
    case etcdMemberAndPropdNode(member: Int, node: Int)

    var description: String {
        switch self {
        case .etcdMember(let member): "kill etcd member \(member)"
        case .etcdQuorum(let first, let second): "kill etcd members \(first) and \(second)"
        case .propdNode(let node): "kill propd node \(node)"
        case .etcdMemberAndPropdNode(let member, let node): "kill etcd member \(member) and propd node \(node)"
        }
    }

    var killedNode: Int? {
        switch self {
        case .propdNode(let node), .etcdMemberAndPropdNode(_, let node): node
        case .etcdMember, .etcdQuorum: nil
        }
    }

    /// Every kind once, then `extra` more, in an order and on targets drawn
    /// from `random`.
    static func rounds(extra: Int, members: Int, nodes: Int, using random: inout SplitMix) -> [Fault] {
        func draw(_ kind: Int) -> Fault {
            let member = Int.random(in: 0..<members, using: &random)
            let node = Int.random(in: 0..<nodes, using: &random)
            switch kind {
            case 0: return .etcdMember(member)
            case 1: return .etcdQuorum(member, (member + Int.random(in: 1..<members, using: &random)) % members)
            case 2: return .propdNode(node)
            default: return .etcdMemberAndPropdNode(member: member, node: node)
            }
        }
        let kinds = Array(0..<4).shuffled(using: &random) + (0..<extra).map { _ in Int.random(in: 0..<4, using: &random) }
        return kinds.map(draw)
    }
}

/// The three etcd members and the propd nodes of a fault check. Killing,
/// restarting and waiting for health block their thread, so they run on a
/// Dispatch thread, not on Swift's cooperative pool that the writing
/// clients need; the mutex hands the processes to that thread.
final class FaultTargets: Sendable {
    private struct Processes {
        var etcd: EtcdCluster
        var nodes: [PropdProcess]
    }

    private let processes: Mutex<Processes>
    /// Each node's socket, by node index.
    let socketPaths: [String]

    private init(nodeCount: Int, prefix: String) throws {
        let etcd = try EtcdCluster(members: 3)
        let arguments = ["--etcd", etcd.clientURLs.joined(separator: ","), "--etcd-prefix", prefix]
        let nodes = try (0..<nodeCount).map { _ in try PropdProcess(extraArguments: arguments) }
        socketPaths = nodes.map(\.socketPath)
        processes = Mutex(Processes(etcd: etcd, nodes: nodes))
    }

    /// Starts three etcd members and `nodes` propd nodes on `prefix`.
    static func start(nodes: Int, prefix: String) async throws -> FaultTargets {
        try await offThePool { try FaultTargets(nodeCount: nodes, prefix: prefix) }
    }

    /// SIGKILLs what `fault` names.
    func inject(_ fault: Fault) async throws {
        try await onProcesses { processes in
            switch fault {
            case .etcdMember(let member): processes.etcd.kill(member)
            case .etcdQuorum(let first, let second):
                processes.etcd.kill(first)
                processes.etcd.kill(second)
            case .propdNode(let node): processes.nodes[node].kill()
            case .etcdMemberAndPropdNode(let member, let node):
                processes.etcd.kill(member)
                processes.nodes[node].kill()
            }
        }
    }

    /// Restarts what `fault` killed and returns once every etcd member is
    /// healthy and every node is ready again.
    func heal(_ fault: Fault) async throws {
        try await onProcesses { processes in
            switch fault {
            case .etcdMember(let member), .etcdMemberAndPropdNode(let member, _):
                try processes.etcd.restart(member, waitForHealth: false)
            case .etcdQuorum(let first, let second):
                try processes.etcd.restart(first, waitForHealth: false)
                try processes.etcd.restart(second, waitForHealth: false)
            case .propdNode:
                break
            }
            for member in processes.etcd.members.indices { try processes.etcd.waitUntilHealthy(member) }
            if let node = fault.killedNode { try processes.nodes[node].restart() }
        }
    }

    /// The logs of every member and node, for a failure's message.
    func logs() async throws -> String {
        try await onProcesses { processes in
            let etcd = processes.etcd.members.indices.map { "etcd \($0):\n\(processes.etcd.log($0).suffix(2000))" }
            let nodes = processes.nodes.indices.map { "propd \($0):\n\(processes.nodes[$0].log.suffix(4000))" }
            return (etcd + nodes).joined(separator: "\n")
        }
    }

    private func onProcesses<T: Sendable>(_ body: @escaping @Sendable (inout Processes) throws -> T) async throws -> T {
        try await offThePool { try self.processes.withLock { try body(&$0) } }
    }
}

/// Runs a blocking `body` on a Dispatch thread and waits for it without
/// holding a thread of the cooperative pool.
private func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
