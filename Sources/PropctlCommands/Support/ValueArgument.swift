import PropdCore

/// How a VALUE argument becomes a JSON value: JSON when the whole argument
/// parses as JSON (`21.5`, `true`, `null`, `[1,2]`, `{"a":1}`, `"quoted"`),
/// otherwise the argument itself as a string (`Ada`, `hello world`).
enum ValueArgument {
    static func parse(_ text: String, forceString: Bool) -> JSONValue {
        if forceString { return .string(text) }
        if let value = try? JSONValue(parsing: text) { return value }
        return .string(text)
    }

    /// How `get`, `list` and `watch` show a value to a person: strings raw
    /// (so `$(propctl get name)` is `Ada`, not `"Ada"`), everything else as JSON.
    static func display(_ value: JSONValue?) -> String {
        switch value {
        case nil: return ""
        case .string(let s)?: return s
        case let other?: return other.jsonString
        }
    }

    /// Like ``display(_:)`` but in a table row, where a newline would break
    /// the alignment: multi-line strings are shown as JSON.
    static func cell(_ value: JSONValue?) -> String {
        if case .string(let s)? = value, s.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\t" }) {
            return JSONValue.string(s).jsonString
        }
        return display(value)
    }
}
