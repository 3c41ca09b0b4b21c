public import PropdJSON

/// One Varlink reply: `{"parameters": {...}}`, `{"parameters": {...}, "continues": true}`
/// or `{"error": "org.example.NotFound", "parameters": {...}}`.
public struct VarlinkReply: Sendable, Equatable {
    /// The method's output, or the error's parameters.
    public var parameters: [String: JSONValue]
    /// More replies to the same call follow (only for calls made with `more`).
    public var continues: Bool
    /// The fully qualified error name when the call failed.
    public var error: String?

    public init(parameters: [String: JSONValue] = [:], continues: Bool = false, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }

    /// The reply that carries `error`.
    public init(error: VarlinkCallError) {
        self.init(parameters: error.parameters, continues: false, error: error.name)
    }
}

extension VarlinkReply {
    /// Reads a reply out of a decoded message object; unknown members are ignored.
    public init(message: [String: JSONValue]) throws(VarlinkMessageShapeError) {
        self.parameters = [:]
        self.continues = false
        self.error = nil
        for (name, value) in message {
            switch (name, value) {
            case ("parameters", .object(let parameters)): self.parameters = parameters
            case ("continues", .bool(let b)): self.continues = b
            case ("error", .string(let e)): self.error = e
            case (_, .null): continue
            case ("parameters", _): throw VarlinkMessageShapeError(member: name, expected: "object", actual: value.typeName)
            case ("continues", _): throw VarlinkMessageShapeError(member: name, expected: "bool", actual: value.typeName)
            case ("error", _): throw VarlinkMessageShapeError(member: name, expected: "string", actual: value.typeName)
            default: continue
            }
        }
    }
}
