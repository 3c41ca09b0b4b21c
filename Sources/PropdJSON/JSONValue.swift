/// A JSON value as propd stores, compares and sends it.
///
/// Numbers keep their kind: an integer literal stays an integer (`21` is
/// written back as `21`, never `21.0`), and arithmetic that yields a whole
/// number inside ±2^53 becomes an integer again (see ``JSONValue/number(_:)``).
/// Equality is JSON equality: numbers compare by value (`1 == 1.0`), objects
/// ignore member order.
///
/// ```swift
/// let v = try JSONValue(parsing: #"{"temp": 21.5, "unit": "C"}"#)
/// v["temp"]            // .double(21.5)
/// v.jsonString         // {"temp":21.5,"unit":"C"}
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The largest magnitude at which every integer is exactly representable
    /// as a `Double`, and so the bound below which a whole `Double` is folded
    /// into `.integer`.
    public static let maxExactInteger: Double = 9_007_199_254_740_992  // 2^53

    /// A number from a `Double`, folded to `.integer` when it is whole and
    /// within ±2^53 (so `6 / 2` is `3`, and `-0.0` is `0`).
    @inlinable
    public static func number(_ d: Double) -> JSONValue {
        if d.rounded(.towardZero) == d, abs(d) <= maxExactInteger {
            return .integer(Int64(d))
        }
        return .double(d)
    }

    /// The value as a `Double` when it is a number.
    @inlinable
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The name of the value's JSON type, as error messages show it.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .integer, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Member access; `nil` when this is not an object or has no such member.
    public subscript(member: String) -> JSONValue? {
        if case .object(let o) = self { return o[member] }
        return nil
    }

    // MARK: JSON equality

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.integer(let a), .double(let b)): return Double(a) == b && Int64(exactly: b) == a
        case (.double(let a), .integer(let b)): return a == Double(b) && Int64(exactly: a) == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .integer(let i): hasher.combine(Double(i))
        case .double(let d): hasher.combine(d)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let o): hasher.combine(o)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String { jsonString }
}
