import EtcdTestSupport
import PropdCore
import PropdTestSupport
import Testing

/// Where the daemon under a contract test keeps its space: the contract
/// holds on either (CONTRACT.md 6.3).
enum StoreKind: String, Sendable, CustomTestStringConvertible {
    /// A standalone propd on its SQLite file.
    case sqlite
    /// A cluster node (`--etcd`) on a real one-member etcd.
    case etcd

    /// Both, or SQLite alone where etcd is not installed.
    static var available: [StoreKind] { EtcdCluster.executable == nil ? [.sqlite] : [.sqlite, .etcd] }

    var testDescription: String { rawValue }
}

/// A real propd on the store asked for, with its etcd when it has one
/// (stopped by PID with it).
final class DaemonOnStore {
    let store: StoreKind
    let process: PropdProcess
    private let etcd: EtcdCluster?

    var socketPath: String { process.socketPath }
    /// The etcd client URLs the node was given (nil on SQLite).
    var etcdEndpoints: [String]? { etcd?.clientURLs }

    init(_ store: StoreKind) throws {
        self.store = store
        switch store {
        case .sqlite:
            etcd = nil
            process = try PropdProcess()
        case .etcd:
            let etcd = try EtcdCluster(members: 1)
            self.etcd = etcd
            process = try PropdProcess(extraArguments: [
                "--etcd", etcd.clientURLs.joined(separator: ","), "--etcd-prefix", "/propd/contract",
            ])
        }
    }

    /// Checks the revisions of a fresh space's first writes, made one
    /// after another: 1, 2, 3… on SQLite; strictly increasing on etcd,
    /// whose revision numbers skip those of other etcd writes.
    func expectFirstWrites(_ revisions: [Revision], sourceLocation: SourceLocation = #_sourceLocation) {
        if store == .sqlite { #expect(revisions.first == 1, "\(revisions)", sourceLocation: sourceLocation) }
        expectSuccessive(revisions, sourceLocation: sourceLocation)
    }

    /// Checks the revisions of writes with nothing committed between them:
    /// each the next one on SQLite; strictly increasing on etcd.
    func expectSuccessive(_ revisions: [Revision], sourceLocation: SourceLocation = #_sourceLocation) {
        let pairs = zip(revisions, revisions.dropFirst())
        switch store {
        case .sqlite: #expect(pairs.allSatisfy { $0.next == $1 }, "\(revisions)", sourceLocation: sourceLocation)
        case .etcd: #expect(pairs.allSatisfy { $0 < $1 }, "\(revisions)", sourceLocation: sourceLocation)
        }
    }
}
