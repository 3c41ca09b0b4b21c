public import PropdCore

/// IDL: `type Property (key, value: ?object, revision, created, binding: ?string, error: ?string, expires: ?int)`.
extension Property {
    /// The property as io.propd's `Property` object; absent fields are left out.
    public var wireValue: JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(key.rawValue),
            "revision": .integer(revision.rawValue),
            "created": .integer(created.rawValue),
        ]
        if let value { object["value"] = value }
        if let binding { object["binding"] = .string(binding) }
        if let error { object["error"] = .string(error) }
        if let expires { object["expires"] = .integer(expires) }
        return .object(object)
    }

    /// Appends the same object as ``wireValue``'s compact text, members in
    /// the same (sorted) order, without building it: every `Get` answers so.
    public func encodeWire(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let binding {
            out.append(contentsOf: #""binding":"#.utf8)
            JSONValue.encodeString(binding, into: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""created":"#.utf8)
        JSONValue.integer(created.rawValue).encode(into: &out)
        if let error {
            out.append(contentsOf: #","error":"#.utf8)
            JSONValue.encodeString(error, into: &out)
        }
        if let expires {
            out.append(contentsOf: #","expires":"#.utf8)
            JSONValue.integer(expires).encode(into: &out)
        }
        out.append(contentsOf: #","key":"#.utf8)
        JSONValue.encodeString(key.rawValue, into: &out)
        out.append(contentsOf: #","revision":"#.utf8)
        JSONValue.integer(revision.rawValue).encode(into: &out)
        if let value {
            out.append(contentsOf: #","value":"#.utf8)
            value.encode(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Reads an io.propd `Property` object.
    public init(wire object: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(object)
        self.init(
            key: try fields.key("key"),
            value: object["value"],
            revision: try fields.revision("revision"),
            created: try fields.revision("created"),
            binding: try fields.optionalString("binding"),
            error: try fields.optionalString("error"),
            expires: try fields.optionalInteger("expires"))
    }

    /// Reads a `[]Property` field.
    static func list(_ fields: WireFields, _ name: String) throws(WireShapeError) -> [Property] {
        var properties: [Property] = []
        for object in try fields.objects(name) { properties.append(try Property(wire: object)) }
        return properties
    }
}
