public import PropdJSON

/// Typed reads of call parameters that fail with
/// `org.varlink.service.InvalidParameter(parameter)` naming the member.
///
/// ```swift
/// let key = try call.parameters.requiredString("key")
/// let limit = try call.parameters.optionalInteger("limit") ?? 100
/// ```
extension Dictionary where Key == String, Value == JSONValue {
    public func requiredString(_ name: String) throws(VarlinkCallError) -> String {
        guard let value = try optionalString(name) else { throw .invalidParameter(name) }
        return value
    }

    /// The string member, nil when absent or null.
    public func optionalString(_ name: String) throws(VarlinkCallError) -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw .invalidParameter(name)
        }
    }

    public func requiredInteger(_ name: String) throws(VarlinkCallError) -> Int64 {
        guard let value = try optionalInteger(name) else { throw .invalidParameter(name) }
        return value
    }

    /// The integer member (a whole number within ±2^53 written as `3.0` counts),
    /// nil when absent or null.
    public func optionalInteger(_ name: String) throws(VarlinkCallError) -> Int64? {
        switch self[name] {
        case nil, .null?: return nil
        case .integer(let i)?: return i
        case .double(let d)?:
            guard case .integer(let i) = JSONValue.number(d) else { throw .invalidParameter(name) }
            return i
        default: throw .invalidParameter(name)
        }
    }

    /// The bool member, nil when absent or null.
    public func optionalBool(_ name: String) throws(VarlinkCallError) -> Bool? {
        switch self[name] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: throw .invalidParameter(name)
        }
    }

    public func requiredArray(_ name: String) throws(VarlinkCallError) -> [JSONValue] {
        guard let value = try optionalArray(name) else { throw .invalidParameter(name) }
        return value
    }

    /// The array member, nil when absent or null.
    public func optionalArray(_ name: String) throws(VarlinkCallError) -> [JSONValue]? {
        switch self[name] {
        case nil, .null?: return nil
        case .array(let a)?: return a
        default: throw .invalidParameter(name)
        }
    }

    /// An array member whose elements must all be strings.
    public func requiredStringArray(_ name: String) throws(VarlinkCallError) -> [String] {
        var strings: [String] = []
        for element in try requiredArray(name) {
            guard case .string(let s) = element else { throw .invalidParameter(name) }
            strings.append(s)
        }
        return strings
    }

    public func requiredObject(_ name: String) throws(VarlinkCallError) -> [String: JSONValue] {
        guard let value = try optionalObject(name) else { throw .invalidParameter(name) }
        return value
    }

    /// The object member, nil when absent or null.
    public func optionalObject(_ name: String) throws(VarlinkCallError) -> [String: JSONValue]? {
        switch self[name] {
        case nil, .null?: return nil
        case .object(let o)?: return o
        default: throw .invalidParameter(name)
        }
    }
}
