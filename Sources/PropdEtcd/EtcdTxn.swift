import EtcdAPI
import Foundation

/// One condition of a transaction: a key's revision, version or value
/// compared with a given one.
///
/// ```swift
/// // The key was not written since revision 41 (it is unchanged since we read it):
/// let unchanged = EtcdCompare(.key(key), .equal, .modRevision(41))
/// // The key does not exist:
/// let absent = EtcdCompare(.key(key), .equal, .createRevision(0))
/// ```
public struct EtcdCompare: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        case modRevision(Int64)
        case createRevision(Int64)
        case version(Int64)
        case value([UInt8])
    }

    public enum Relation: Sendable, Hashable {
        case equal, notEqual, less, greater
    }

    public var keys: EtcdKeyRange
    public var relation: Relation
    public var target: Target

    public init(_ keys: EtcdKeyRange, _ relation: Relation, _ target: Target) {
        self.keys = keys
        self.relation = relation
        self.target = target
    }

    var message: Etcdserverpb_Compare {
        var compare = Etcdserverpb_Compare()
        compare.key = Data(keys.key)
        compare.rangeEnd = Data(keys.rangeEnd)
        compare.result =
            switch relation {
            case .equal: .equal
            case .notEqual: .notEqual
            case .less: .less
            case .greater: .greater
            }
        switch target {
        case .modRevision(let revision):
            compare.target = .mod
            compare.modRevision = revision
        case .createRevision(let revision):
            compare.target = .create
            compare.createRevision = revision
        case .version(let version):
            compare.target = .version
            compare.version = version
        case .value(let value):
            compare.target = .value
            compare.value = Data(value)
        }
        return compare
    }
}

/// One operation of a transaction's success or failure branch.
public enum EtcdOperation: Sendable, Hashable {
    case range(EtcdKeyRange)
    /// The key of the range written last, without its value: its
    /// `mod_revision` is the newest write to the range that still stands
    /// (no key when the range is empty). Answered as a ``EtcdTxnResult/OperationResult/range(_:)``.
    case newest(EtcdKeyRange)
    case put(key: [UInt8], value: [UInt8], lease: Int64 = 0)
    case delete(EtcdKeyRange)

    var isWrite: Bool {
        switch self {
        case .range, .newest: false
        case .put, .delete: true
        }
    }

    var message: Etcdserverpb_RequestOp {
        var op = Etcdserverpb_RequestOp()
        switch self {
        case .range(let keys):
            op.requestRange = EtcdRequests.range(keys, revision: 0, limit: 0)
        case .newest(let keys):
            var range = EtcdRequests.range(keys, revision: 0, limit: 1)
            range.sortTarget = .mod
            range.sortOrder = .descend
            range.keysOnly = true
            op.requestRange = range
        case .put(let key, let value, let lease):
            op.requestPut = EtcdRequests.put(key, value, lease: lease, returnPrevious: false)
        case .delete(let keys):
            op.requestDeleteRange = EtcdRequests.delete(keys, returnPrevious: false)
        }
        return op
    }
}

/// What a transaction returns: which branch ran, its revision, and each
/// operation's answer in order.
public struct EtcdTxnResult: Sendable, Hashable {
    public enum OperationResult: Sendable, Hashable {
        case range(EtcdRangeResult)
        case put(EtcdPutResult)
        case delete(EtcdDeleteResult)
    }

    /// Whether every compare held, so the success branch ran.
    public var succeeded: Bool
    /// The revision after the transaction: new if it wrote, else the current one.
    public var revision: Int64
    public var results: [OperationResult]

    init(succeeded: Bool, revision: Int64, results: [OperationResult]) {
        self.succeeded = succeeded
        self.revision = revision
        self.results = results
    }

    init(_ response: Etcdserverpb_TxnResponse) {
        succeeded = response.succeeded
        revision = response.header.revision
        results = response.responses.compactMap { op in
            switch op.response {
            case .responseRange(let range): .range(EtcdRangeResult(range))
            case .responsePut(let put): .put(EtcdPutResult(put))
            case .responseDeleteRange(let delete): .delete(EtcdDeleteResult(delete))
            case .responseTxn, nil: nil
            }
        }
    }
}
