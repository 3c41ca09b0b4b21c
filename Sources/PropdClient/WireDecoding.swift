import PropdCore

/// Reading io.propd's types from reply parameters; anything unexpected is
/// a `malformedReply` naming what was wrong.
enum WireDecoding {
    static func string(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> String {
        guard case .string(let s)? = object[name] else { throw .malformedReply("missing string '\(name)'") }
        return s
    }

    static func optionalString(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw .malformedReply("'\(name)' is not a string")
        }
    }

    static func integer(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> Int64 {
        switch object[name] {
        case .integer(let i)?: return i
        case .double(let d)?:
            if case .integer(let i) = JSONValue.number(d) { return i }
            throw .malformedReply("'\(name)' is not an integer")
        default: throw .malformedReply("missing integer '\(name)'")
        }
    }

    static func optionalInteger(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> Int64? {
        switch object[name] {
        case nil, .null?: return nil
        default: return try integer(object, name)
        }
    }

    static func revision(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> Revision {
        Revision(try integer(object, name))
    }

    static func array(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> [JSONValue] {
        guard case .array(let a)? = object[name] else { throw .malformedReply("missing array '\(name)'") }
        return a
    }

    static func objects(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> [[String: JSONValue]] {
        var result: [[String: JSONValue]] = []
        for element in try array(object, name) {
            guard case .object(let o) = element else { throw .malformedReply("'\(name)' holds a non-object") }
            result.append(o)
        }
        return result
    }

    static func strings(_ object: [String: JSONValue], _ name: String) throws(PropdClientError) -> [String] {
        var result: [String] = []
        for element in try array(object, name) {
            guard case .string(let s) = element else { throw .malformedReply("'\(name)' holds a non-string") }
            result.append(s)
        }
        return result
    }

    static func key(_ text: String) throws(PropdClientError) -> Key {
        do {
            return try Key(text)
        } catch {
            throw .malformedReply("'\(text)' is not a key")
        }
    }

    static func property(_ object: [String: JSONValue]) throws(PropdClientError) -> Property {
        Property(
            key: try key(try string(object, "key")),
            value: object["value"],
            revision: try revision(object, "revision"),
            created: try revision(object, "created"),
            binding: try optionalString(object, "binding"),
            error: try optionalString(object, "error"),
            expires: try optionalInteger(object, "expires"))
    }

    static func event(_ object: [String: JSONValue]) throws(PropdClientError) -> Event {
        let kindText = try string(object, "kind")
        guard let kind = Event.Kind(rawValue: kindText) else { throw .malformedReply("unknown event kind '\(kindText)'") }
        return Event(
            key: try string(object, "key"), kind: kind, value: object["value"],
            revision: try revision(object, "revision"), error: try optionalString(object, "error"))
    }
}
