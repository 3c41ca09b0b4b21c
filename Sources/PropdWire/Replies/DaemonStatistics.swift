public import PropdCore

/// Figures of a running daemon.
///
/// `Stats -> (revision, keys, bindings, subscriptions, connections, uptimeSeconds: float, databaseBytes)`.
public struct DaemonStatistics: IOPropdReply {
    public var revision: Revision
    public var keys: Int
    public var bindings: Int
    public var subscriptions: Int
    public var connections: Int
    public var uptimeSeconds: Double
    public var databaseBytes: Int

    public init(
        revision: Revision, keys: Int, bindings: Int, subscriptions: Int, connections: Int, uptimeSeconds: Double,
        databaseBytes: Int
    ) {
        self.revision = revision
        self.keys = keys
        self.bindings = bindings
        self.subscriptions = subscriptions
        self.connections = connections
        self.uptimeSeconds = uptimeSeconds
        self.databaseBytes = databaseBytes
    }

    public var parameters: [String: JSONValue] {
        [
            "revision": .integer(revision.rawValue),
            "keys": .integer(Int64(keys)),
            "bindings": .integer(Int64(bindings)),
            "subscriptions": .integer(Int64(subscriptions)),
            "connections": .integer(Int64(connections)),
            "uptimeSeconds": .double(uptimeSeconds),
            "databaseBytes": .integer(Int64(databaseBytes)),
        ]
    }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(parameters)
        let uptime = try fields.double("uptimeSeconds")
        self.init(
            revision: try fields.revision("revision"), keys: Int(try fields.integer("keys")),
            bindings: Int(try fields.integer("bindings")), subscriptions: Int(try fields.integer("subscriptions")),
            connections: Int(try fields.integer("connections")), uptimeSeconds: uptime,
            databaseBytes: Int(try fields.integer("databaseBytes")))
    }
}
