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
        switch message["parameters"] {
        case nil, .null?: self.parameters = [:]
        case .object(let parameters)?: self.parameters = parameters
        case let other?: throw VarlinkMessageShapeError(member: "parameters", expected: "object", actual: other.typeName)
        }
        switch message["continues"] {
        case nil, .null?: self.continues = false
        case .bool(let b)?: self.continues = b
        case let other?: throw VarlinkMessageShapeError(member: "continues", expected: "bool", actual: other.typeName)
        }
        switch message["error"] {
        case nil, .null?: self.error = nil
        case .string(let name)?: self.error = name
        case let other?: throw VarlinkMessageShapeError(member: "error", expected: "string", actual: other.typeName)
        }
    }
}
