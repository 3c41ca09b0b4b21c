import EtcdAPI
import Foundation

/// A key as etcd stores it, with the revisions that say when it was written.
public struct EtcdKeyValue: Sendable, Hashable {
    public var key: [UInt8]
    public var value: [UInt8]
    /// The revision of the write that created the key (since its last delete).
    public var createRevision: Int64
    /// The revision of the last write to the key.
    public var modRevision: Int64
    /// How many times the key was written since it was created (1 after the first).
    public var version: Int64
    /// The lease the key is attached to, 0 for none.
    public var lease: Int64

    public init(
        key: [UInt8], value: [UInt8], createRevision: Int64 = 0, modRevision: Int64 = 0, version: Int64 = 0,
        lease: Int64 = 0
    ) {
        self.key = key
        self.value = value
        self.createRevision = createRevision
        self.modRevision = modRevision
        self.version = version
        self.lease = lease
    }

    init(_ kv: Mvccpb_KeyValue) {
        self.init(
            key: Array(kv.key), value: Array(kv.value), createRevision: kv.createRevision,
            modRevision: kv.modRevision, version: kv.version, lease: kv.lease)
    }
}

/// The keys a request covers: one key, or `[key, rangeEnd)`.
///
/// ```swift
/// let one = EtcdKeyRange.key(Array("/propd/p/a".utf8))
/// let all = EtcdKeyRange.prefix(Array("/propd/".utf8))
/// ```
public struct EtcdKeyRange: Sendable, Hashable {
    public var key: [UInt8]
    /// Empty for one key; `[0]` for every key from `key` on.
    public var rangeEnd: [UInt8]

    public init(key: [UInt8], rangeEnd: [UInt8]) {
        self.key = key
        self.rangeEnd = rangeEnd
    }

    public static func key(_ key: [UInt8]) -> Self { Self(key: key, rangeEnd: []) }

    /// Every key that starts with `prefix`.
    public static func prefix(_ prefix: [UInt8]) -> Self {
        // etcd's prefix end: the prefix with its last byte below 0xff
        // incremented and what follows dropped; all 0xff means "to the end".
        var end = prefix
        while let last = end.last {
            if last < 0xff {
                end[end.count - 1] = last + 1
                return Self(key: prefix, rangeEnd: end)
            }
            end.removeLast()
        }
        return Self(key: prefix, rangeEnd: [0])
    }
}
