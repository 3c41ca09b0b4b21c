public import PropdCore

/// A declared binding, as `Bindings` lists it.
/// IDL: `type Binding (key, expression, sources: []string, error: ?string, state: ?object)`.
public struct BindingInfo: Sendable, Hashable {
    public var key: String
    public var expression: String
    public var sources: [String]
    /// The derived property's current evaluation error, if any.
    public var error: String?
    /// The binding's operator state, as `Bind(…, state)` takes it back.
    public var state: JSONValue?

    public init(key: String, expression: String, sources: [String], error: String? = nil, state: JSONValue? = nil) {
        self.state = state
        self.key = key
        self.expression = expression
        self.sources = sources
        self.error = error
    }

    /// The binding as io.propd's `Binding` object; absent fields are left out.
    public var wireValue: JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(key),
            "expression": .string(expression),
            "sources": sources.wireValue,
        ]
        if let error { object["error"] = .string(error) }
        if let state { object["state"] = state }
        return .object(object)
    }

    /// Reads an io.propd `Binding` object.
    public init(wire object: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(object)
        self.init(
            key: try fields.string("key"), expression: try fields.string("expression"),
            sources: try fields.strings("sources"), error: try fields.optionalString("error"), state: object["state"])
    }
}
