import PropdCore

/// What a daemon is to its property space, as `Stats` reports it: alone on
/// its database, or one node of a cluster on etcd (with the endpoints it
/// uses and whether it holds the timer election, so fires the deadlines).
///
/// On the wire: `role` is `"standalone"` or `"cluster"`; a cluster node adds
/// `etcdEndpoints` and `timerHolder`.
public enum NodeRole: Sendable, Hashable {
    case standalone
    case cluster(etcdEndpoints: [String], timerHolder: Bool)

    /// The `role` field's value.
    public var name: String {
        switch self {
        case .standalone: return "standalone"
        case .cluster: return "cluster"
        }
    }

    var parameters: [String: JSONValue] {
        switch self {
        case .standalone:
            return ["role": .string(name)]
        case .cluster(let endpoints, let holder):
            return ["role": .string(name), "etcdEndpoints": endpoints.wireValue, "timerHolder": .bool(holder)]
        }
    }

    /// The role in `fields`; nil from a daemon that does not report one.
    init?(_ fields: WireFields) throws(WireShapeError) {
        switch try fields.optionalString("role") {
        case nil:
            return nil
        case "standalone":
            self = .standalone
        case "cluster":
            guard case .bool(let holder)? = fields.object["timerHolder"] else {
                throw WireShapeError("missing bool 'timerHolder' of a cluster node")
            }
            self = .cluster(etcdEndpoints: try fields.optionalStrings("etcdEndpoints"), timerHolder: holder)
        case let other?:
            throw WireShapeError("'role' is '\(other)', neither standalone nor cluster")
        }
    }
}
