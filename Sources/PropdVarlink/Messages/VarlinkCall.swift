public import PropdJSON

/// One Varlink method call: `{"method": "org.example.Ping", "parameters": {...}, "more": true}`.
///
/// ```swift
/// let call = VarlinkCall(method: "org.varlink.service.GetInfo")
/// ```
public struct VarlinkCall: Sendable, Equatable {
    /// The fully qualified method name, `interface.Method`.
    public var method: String
    /// The call's input; an absent `parameters` member decodes as empty.
    public var parameters: [String: JSONValue]
    /// The caller accepts several replies (all but the last carry `continues`).
    public var more: Bool
    /// The caller wants no reply at all.
    public var oneway: Bool
    /// The caller asks to take the connection over after the reply.
    /// PropdVarlink does not support protocol upgrades and refuses such calls.
    public var upgrade: Bool

    public init(
        method: String,
        parameters: [String: JSONValue] = [:],
        more: Bool = false,
        oneway: Bool = false,
        upgrade: Bool = false
    ) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
        self.upgrade = upgrade
    }

    /// The interface part of ``method`` (everything before the last dot).
    public var interfaceName: Substring {
        guard let dot = method.lastIndex(of: ".") else { return "" }
        return method[..<dot]
    }
}

extension VarlinkCall {
    /// Reads a call out of a decoded message object.
    ///
    /// Unknown members are ignored (the protocol may grow). A member of the
    /// wrong type is a ``VarlinkMessageShapeError`` naming it, which the server
    /// answers with `org.varlink.service.InvalidParameter`.
    public init(message: [String: JSONValue]) throws(VarlinkMessageShapeError) {
        // One pass over the members (short string compares) instead of a
        // hash lookup per member name: this runs once per call.
        var method: String?
        self.parameters = [:]
        self.more = false
        self.oneway = false
        self.upgrade = false
        for (name, value) in message {
            switch name {
            case "method":
                guard case .string(let m) = value else {
                    throw VarlinkMessageShapeError(member: "method", expected: "string", actual: value.typeName)
                }
                method = m
            case "parameters":
                switch value {
                case .null: break
                case .object(let parameters): self.parameters = parameters
                default: throw VarlinkMessageShapeError(member: "parameters", expected: "object", actual: value.typeName)
                }
            case "more": self.more = try Self.flag(name, value)
            case "oneway": self.oneway = try Self.flag(name, value)
            case "upgrade": self.upgrade = try Self.flag(name, value)
            default: continue
            }
        }
        guard let method else { throw VarlinkMessageShapeError(member: "method", expected: "string", actual: nil) }
        self.method = method
    }

    private static func flag(_ name: String, _ value: JSONValue) throws(VarlinkMessageShapeError) -> Bool {
        switch value {
        case .null: return false
        case .bool(let b): return b
        default: throw VarlinkMessageShapeError(member: name, expected: "bool", actual: value.typeName)
        }
    }
}

/// A message that is a JSON object but not of the shape Varlink requires.
public struct VarlinkMessageShapeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offending member of the message (`method`, `parameters`, `more`...).
    public var member: String
    /// The JSON type the protocol requires there.
    public var expected: String
    /// The JSON type found, or nil when the member is missing.
    public var actual: String?

    public var description: String {
        if let actual { return "message member '\(member)' must be \(expected), not \(actual)" }
        return "message member '\(member)' (\(expected)) is missing"
    }
}
