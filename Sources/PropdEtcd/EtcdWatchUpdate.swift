import EtcdAPI

/// One change a watch reports.
public struct EtcdEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case put, delete
    }

    public var kind: Kind
    /// The key after the change; for a delete, its key and the delete's
    /// revision as `modRevision`, with an empty value.
    public var keyValue: EtcdKeyValue
    /// The key before the change, when the watch asked for it.
    public var previous: EtcdKeyValue?

    public init(kind: Kind, keyValue: EtcdKeyValue, previous: EtcdKeyValue? = nil) {
        self.kind = kind
        self.keyValue = keyValue
        self.previous = previous
    }

    init(_ event: Mvccpb_Event) {
        kind = event.type == .delete ? .delete : .put
        keyValue = EtcdKeyValue(event.kv)
        previous = event.hasPrevKv ? EtcdKeyValue(event.prevKv) : nil
    }
}

/// What a watch delivers: changes, in revision order, or word that nothing
/// changed up to a revision.
public enum EtcdWatchUpdate: Sendable, Hashable {
    /// Events of one or more whole revisions, in order (etcd never splits a
    /// revision's events across updates).
    case events([EtcdEvent])
    /// Every change in the range up to `revision` has been delivered
    /// (etcd's progress notification on an idle watch).
    case progress(revision: Int64)
}
