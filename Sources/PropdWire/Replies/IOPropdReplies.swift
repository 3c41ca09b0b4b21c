public import PropdCore

/// A method's reply parameters: the daemon encodes them, clients decode them.
public protocol IOPropdReply: Sendable, Hashable {
    /// The reply's parameters, as the IDL declares them (absent optional fields left out).
    var parameters: [String: JSONValue] { get }
    /// Reads the reply's parameters.
    init(parameters: [String: JSONValue]) throws(WireShapeError)
}

/// `Get -> (properties: []Property)`.
public struct PropertiesReply: IOPropdReply {
    public var properties: [Property]

    public init(properties: [Property]) { self.properties = properties }

    public var parameters: [String: JSONValue] { ["properties": .array(properties.map(\.wireValue))] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        properties = try Property.list(WireFields(parameters), "properties")
    }
}

extension PropertiesReply: JSONObjectEncodable {
    /// `{"properties":[…]}`, written without a ``JSONValue`` tree.
    public func encodeJSONObject(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"properties":["#.utf8)
        for (index, property) in properties.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            property.encodeWire(into: &out)
        }
        out.append(contentsOf: "]}".utf8)
    }
}

/// `List -> (properties: []Property, revision: int)`.
public struct ListReply: IOPropdReply {
    public var properties: [Property]
    /// The store revision the properties were read at.
    public var revision: Revision

    public init(properties: [Property], revision: Revision) {
        self.properties = properties
        self.revision = revision
    }

    public var parameters: [String: JSONValue] {
        ["properties": .array(properties.map(\.wireValue)), "revision": .integer(revision.rawValue)]
    }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(parameters)
        properties = try Property.list(fields, "properties")
        revision = try fields.revision("revision")
    }
}

/// `Set`, `Delete`, `Unbind -> (revision: int)`.
public struct RevisionReply: IOPropdReply {
    public var revision: Revision

    public init(revision: Revision) { self.revision = revision }

    public var parameters: [String: JSONValue] { ["revision": .integer(revision.rawValue)] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        revision = try WireFields(parameters).revision("revision")
    }
}

extension RevisionReply: JSONObjectEncodable {
    /// `{"revision":N}`, written without a ``JSONValue`` tree: every write is answered so.
    public func encodeJSONObject(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"revision":"#.utf8)
        JSONValue.encodeInteger(revision.rawValue, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}

/// `Bind -> (revision: int, sources: []string)`.
public struct BindReply: IOPropdReply {
    public var revision: Revision
    /// The keys the binding reads.
    public var sources: [String]

    public init(revision: Revision, sources: [String]) {
        self.revision = revision
        self.sources = sources
    }

    public var parameters: [String: JSONValue] { ["revision": .integer(revision.rawValue), "sources": sources.wireValue] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(parameters)
        revision = try fields.revision("revision")
        sources = try fields.strings("sources")
    }
}

/// `Subscribe -> (event: Event)`, one reply per event. The daemon writes it
/// as bytes with ``EventEncoding/encodeReplyParameters(_:into:)``, inside a
/// reply frame made once per event for every subscriber.
public struct EventReply: IOPropdReply {
    public var event: Event

    public init(event: Event) { self.event = event }

    public var parameters: [String: JSONValue] { ["event": event.wireValue] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        event = try Event(wire: try WireFields(parameters).object("event"))
    }
}

/// `History -> (entries: []Event)`, newest first.
public struct HistoryReply: IOPropdReply {
    public var entries: [Event]

    public init(entries: [Event]) { self.entries = entries }

    public var parameters: [String: JSONValue] { ["entries": .array(entries.map(\.wireValue))] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        entries = try Event.list(WireFields(parameters), "entries")
    }
}

/// `Bindings -> (bindings: []Binding)`.
public struct BindingsReply: IOPropdReply {
    public var bindings: [BindingInfo]

    public init(bindings: [BindingInfo]) { self.bindings = bindings }

    public var parameters: [String: JSONValue] { ["bindings": .array(bindings.map(\.wireValue))] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        var bindings: [BindingInfo] = []
        for object in try WireFields(parameters).objects("bindings") { bindings.append(try BindingInfo(wire: object)) }
        self.bindings = bindings
    }
}

/// `Execute -> (result: ?object, revision: int)`.
extension ExecutionResult: IOPropdReply {
    public var parameters: [String: JSONValue] {
        var reply: [String: JSONValue] = ["revision": .integer(revision.rawValue)]
        if let result { reply["result"] = result }
        return reply
    }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(parameters)
        self.init(result: fields.optionalValue("result"), revision: try fields.revision("revision"))
    }
}

/// `Serve -> (invocation: Invocation)`, one reply per invocation.
public struct InvocationReply: IOPropdReply {
    public var invocation: Invocation

    public init(invocation: Invocation) { self.invocation = invocation }

    public var parameters: [String: JSONValue] { ["invocation": invocation.wireValue] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        guard case .object(let object)? = parameters["invocation"] else {
            throw WireShapeError("a Serve reply without an invocation")
        }
        invocation = try Invocation(wire: object)
    }
}

/// `Complete -> ()`.
public struct EmptyReply: IOPropdReply {
    public init() {}

    public var parameters: [String: JSONValue] { [:] }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {}
}
