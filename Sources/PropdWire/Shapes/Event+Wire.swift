public import PropdCore

/// IDL: `type Event (key, kind, value: ?object, revision, error: ?string)`.
extension Event {
    /// The event as io.propd's `Event` object; absent fields are left out.
    /// ``EventEncoding/encodeObject(_:into:)`` writes the same object as bytes.
    public var wireValue: JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(key),
            "kind": .string(kind.rawValue),
            "revision": .integer(revision.rawValue),
        ]
        if let value { object["value"] = value }
        if let error { object["error"] = .string(error) }
        return .object(object)
    }

    /// Reads an io.propd `Event` object.
    public init(wire object: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(object)
        let kindText = try fields.string("kind")
        guard let kind = Event.Kind(rawValue: kindText) else { throw WireShapeError("unknown event kind '\(kindText)'") }
        self.init(
            key: try fields.string("key"), kind: kind, value: object["value"],
            revision: try fields.revision("revision"), error: try fields.optionalString("error"))
    }

    /// Reads a `[]Event` field.
    static func list(_ fields: WireFields, _ name: String) throws(WireShapeError) -> [Event] {
        var events: [Event] = []
        for object in try fields.objects(name) { events.append(try Event(wire: object)) }
        return events
    }
}

/// The `Event` object written straight to bytes, for the subscription hub:
/// an event is encoded once for all its subscribers, without a JSON tree.
public enum EventEncoding {
    /// The event as the contract's `Event` object:
    /// `{"key":"room.temp","kind":"set","value":21,"revision":7}`; `value` and
    /// `error` are left out when absent.
    public static let jsonObject: @Sendable (Event) -> [UInt8] = { event in
        var out: [UInt8] = []
        out.reserveCapacity(64 + event.key.utf8.count)
        encodeObject(event, into: &out)
        return out
    }

    /// Appends Subscribe's reply parameters, `{"event":{…}}`, to `out`.
    public static func encodeReplyParameters(_ event: Event, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"event":"#.utf8)
        encodeObject(event, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// Room enough for most events' reply parameters.
    public static func replyParametersCapacity(_ event: Event) -> Int { 80 + event.key.utf8.count }

    /// Appends the event's JSON object to `out`.
    public static func encodeObject(_ event: Event, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"key":"#.utf8)
        JSONValue.encodeString(event.key, into: &out)
        out.append(contentsOf: #","kind":""#.utf8)
        out.append(contentsOf: event.kind.rawValue.utf8)
        out.append(UInt8(ascii: "\""))
        if let value = event.value {
            out.append(contentsOf: #","value":"#.utf8)
            value.encode(into: &out)
        }
        out.append(contentsOf: #","revision":"#.utf8)
        JSONValue.encodeInteger(event.revision.rawValue, into: &out)
        if let error = event.error {
            out.append(contentsOf: #","error":"#.utf8)
            JSONValue.encodeString(error, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
