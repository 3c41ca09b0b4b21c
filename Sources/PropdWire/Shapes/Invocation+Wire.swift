public import PropdCore

/// IDL: `type Invocation (id: string, command: string, argument: ?object)`.
extension Invocation {
    /// The invocation as io.propd's `Invocation` object.
    public var wireValue: JSONValue {
        var object: [String: JSONValue] = ["id": .string(id), "command": .string(command.rawValue)]
        if let argument { object["argument"] = argument }
        return .object(object)
    }

    /// Reads an io.propd `Invocation` object.
    public init(wire object: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(object)
        self.init(id: try fields.string("id"), command: try fields.key("command"), argument: fields.optionalValue("argument"))
    }
}
