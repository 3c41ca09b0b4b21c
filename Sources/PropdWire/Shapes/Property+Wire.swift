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
