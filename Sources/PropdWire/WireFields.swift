import PropdCore

/// Reads the fields of one wire object; anything unexpected is a
/// ``WireShapeError`` naming the field.
struct WireFields {
    let object: [String: JSONValue]

    init(_ object: [String: JSONValue]) {
        self.object = object
    }

    func string(_ name: String) throws(WireShapeError) -> String {
        guard case .string(let s)? = object[name] else { throw WireShapeError("missing string '\(name)'") }
        return s
    }

    func optionalString(_ name: String) throws(WireShapeError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw WireShapeError("'\(name)' is not a string")
        }
    }

    func integer(_ name: String) throws(WireShapeError) -> Int64 {
        switch object[name] {
        case .integer(let i)?: return i
        case .double(let d)?:
            if case .integer(let i) = JSONValue.number(d) { return i }
            throw WireShapeError("'\(name)' is not an integer")
        default: throw WireShapeError("missing integer '\(name)'")
        }
    }

    func optionalInteger(_ name: String) throws(WireShapeError) -> Int64? {
        switch object[name] {
        case nil, .null?: return nil
        default: return try integer(name)
        }
    }

    func double(_ name: String) throws(WireShapeError) -> Double {
        guard let d = object[name]?.doubleValue else { throw WireShapeError("missing \(name)") }
        return d
    }

    func revision(_ name: String) throws(WireShapeError) -> Revision {
        Revision(try integer(name))
    }

    /// An untyped `?object` field; absent and `null` are the same.
    func optionalValue(_ name: String) -> JSONValue? {
        guard let value = object[name], value != .null else { return nil }
        return value
    }

    func array(_ name: String) throws(WireShapeError) -> [JSONValue] {
        guard case .array(let a)? = object[name] else { throw WireShapeError("missing array '\(name)'") }
        return a
    }

    func objects(_ name: String) throws(WireShapeError) -> [[String: JSONValue]] {
        var result: [[String: JSONValue]] = []
        for element in try array(name) {
            guard case .object(let o) = element else { throw WireShapeError("'\(name)' holds a non-object") }
            result.append(o)
        }
        return result
    }

    func object(_ name: String) throws(WireShapeError) -> [String: JSONValue] {
        guard case .object(let o)? = object[name] else { throw WireShapeError("missing object '\(name)'") }
        return o
    }

    func strings(_ name: String) throws(WireShapeError) -> [String] {
        var result: [String] = []
        for element in try array(name) {
            guard case .string(let s) = element else { throw WireShapeError("'\(name)' holds a non-string") }
            result.append(s)
        }
        return result
    }

    /// `?[]string`: absent and `null` are empty.
    func optionalStrings(_ name: String) throws(WireShapeError) -> [String] {
        object[name] == nil || object[name] == .null ? [] : try strings(name)
    }

    func key(_ name: String) throws(WireShapeError) -> Key {
        let text = try string(name)
        do {
            return try Key(text)
        } catch {
            throw WireShapeError("'\(text)' is not a key")
        }
    }
}

extension Array where Element == String {
    /// A `[]string` field.
    var wireValue: JSONValue { .array(map { .string($0) }) }
}
