import EtcdAPI
import Foundation
import GRPCCore

/// What a range read returns.
public struct EtcdRangeResult: Sendable, Hashable {
    public var keyValues: [EtcdKeyValue]
    /// The number of keys in the range (not only those returned, with a limit).
    public var count: Int64
    /// Whether a limit left keys out.
    public var more: Bool
    /// The store's revision the read saw.
    public var revision: Int64
}

/// What a put returns.
public struct EtcdPutResult: Sendable, Hashable {
    /// The revision of the write.
    public var revision: Int64
    /// The key before the write, when asked for and it existed.
    public var previous: EtcdKeyValue?
}

/// What a delete returns.
public struct EtcdDeleteResult: Sendable, Hashable {
    /// The store's revision after the delete (unchanged when nothing was deleted).
    public var revision: Int64
    public var deleted: Int64
    /// The keys deleted, when asked for.
    public var previous: [EtcdKeyValue]
}

extension EtcdClient {
    /// Reads a key or a range, linearizably, at the current revision or at
    /// `revision` (history: a compacted revision fails with ``EtcdError/Code/compacted``).
    ///
    /// ```swift
    /// let read = try await etcd.range(.prefix(Array("/app/".utf8)))
    /// for kv in read.keyValues { print(String(decoding: kv.key, as: UTF8.self), kv.modRevision) }
    /// ```
    public func range(_ keys: EtcdKeyRange, revision: Int64 = 0, limit: Int64 = 0) async throws -> EtcdRangeResult {
        let request = EtcdRequests.range(keys, revision: revision, limit: limit)
        return try await withFailover(.safe) { member in
            EtcdRangeResult(try await member.kv.range(request, metadata: EtcdMember.requireLeader, options: callOptions))
        }
    }

    /// Writes one key; returns the write's revision.
    ///
    /// ```swift
    /// let revision = try await etcd.put(Array("/app/a".utf8), Array("1".utf8)).revision
    /// ```
    @discardableResult
    public func put(_ key: [UInt8], _ value: [UInt8], lease: Int64 = 0, returnPrevious: Bool = false)
        async throws -> EtcdPutResult
    {
        let request = EtcdRequests.put(key, value, lease: lease, returnPrevious: returnPrevious)
        return try await withFailover(.unsafe) { member in
            EtcdPutResult(try await member.kv.put(request, metadata: EtcdMember.requireLeader, options: callOptions))
        }
    }

    /// Deletes a key or a range.
    @discardableResult
    public func delete(_ keys: EtcdKeyRange, returnPrevious: Bool = false) async throws -> EtcdDeleteResult {
        let request = EtcdRequests.delete(keys, returnPrevious: returnPrevious)
        return try await withFailover(.unsafe) { member in
            EtcdDeleteResult(
                try await member.kv.deleteRange(request, metadata: EtcdMember.requireLeader, options: callOptions))
        }
    }

    /// Discards the history before `revision` (etcd's compaction); reads and
    /// watches below it then fail with ``EtcdError/Code/compacted``. A
    /// revision compacted already is no error: its history is gone, as asked.
    public func compact(upTo revision: Int64) async throws {
        var request = Etcdserverpb_CompactionRequest()
        request.revision = revision
        request.physical = true
        do {
            // Compacting twice to the same revision is refused, not repeated: safe.
            _ = try await withFailover(.safe) { member in
                try await member.kv.compact(request, metadata: EtcdMember.requireLeader, options: callOptions)
            }
        } catch let error as EtcdError where error.code == .compacted {
            // Compacted that far before, or by this call's own attempt that
            // timed out while etcd compacted and was sent again.
        }
    }
}

/// etcd's request messages, built in one place for the calls and for txn.
enum EtcdRequests {
    static func range(_ keys: EtcdKeyRange, revision: Int64, limit: Int64) -> Etcdserverpb_RangeRequest {
        var request = Etcdserverpb_RangeRequest()
        request.key = Data(keys.key)
        request.rangeEnd = Data(keys.rangeEnd)
        request.revision = revision
        request.limit = limit
        return request
    }

    static func put(_ key: [UInt8], _ value: [UInt8], lease: Int64, returnPrevious: Bool) -> Etcdserverpb_PutRequest {
        var request = Etcdserverpb_PutRequest()
        request.key = Data(key)
        request.value = Data(value)
        request.lease = lease
        request.prevKv = returnPrevious
        return request
    }

    static func delete(_ keys: EtcdKeyRange, returnPrevious: Bool) -> Etcdserverpb_DeleteRangeRequest {
        var request = Etcdserverpb_DeleteRangeRequest()
        request.key = Data(keys.key)
        request.rangeEnd = Data(keys.rangeEnd)
        request.prevKv = returnPrevious
        return request
    }
}

extension EtcdRangeResult {
    init(_ response: Etcdserverpb_RangeResponse) {
        self.init(
            keyValues: response.kvs.map(EtcdKeyValue.init), count: response.count, more: response.more,
            revision: response.header.revision)
    }
}

extension EtcdPutResult {
    init(_ response: Etcdserverpb_PutResponse) {
        self.init(
            revision: response.header.revision, previous: response.hasPrevKv ? EtcdKeyValue(response.prevKv) : nil)
    }
}

extension EtcdDeleteResult {
    init(_ response: Etcdserverpb_DeleteRangeResponse) {
        self.init(
            revision: response.header.revision, deleted: response.deleted,
            previous: response.prevKvs.map(EtcdKeyValue.init))
    }
}
