import PropdClient
import PropdCore

/// The JSON shapes of `--json` output: the io.propd types as they travel on
/// the wire, so a script reads the same fields whether it talks Varlink or
/// runs propctl.
enum WireJSON {
    static func property(_ p: Property) -> JSONValue {
        var o: [String: JSONValue] = [
            "key": .string(p.key.rawValue), "revision": .integer(p.revision.rawValue),
            "created": .integer(p.created.rawValue),
        ]
        if let value = p.value { o["value"] = value }
        if let binding = p.binding { o["binding"] = .string(binding) }
        if let error = p.error { o["error"] = .string(error) }
        if let expires = p.expires { o["expires"] = .integer(expires) }
        return .object(o)
    }

    static func event(_ e: Event) -> JSONValue {
        var o: [String: JSONValue] = [
            "key": .string(e.key), "kind": .string(e.kind.rawValue), "revision": .integer(e.revision.rawValue),
        ]
        if let value = e.value { o["value"] = value }
        if let error = e.error { o["error"] = .string(error) }
        return .object(o)
    }

    static func binding(_ b: BindingInfo) -> JSONValue {
        var o: [String: JSONValue] = [
            "key": .string(b.key), "expression": .string(b.expression),
            "sources": .array(b.sources.map { .string($0) }),
        ]
        if let error = b.error { o["error"] = .string(error) }
        return .object(o)
    }

    static func revision(_ r: Revision) -> JSONValue { .object(["revision": .integer(r.rawValue)]) }

    /// Prints one compact JSON document and a newline. DEL and C1 controls,
    /// which JSON allows raw, are escaped too: the same document, safe on a terminal.
    static func print(_ value: JSONValue) {
        StandardStreams.out(TerminalText.escaped(value.jsonString) + "\n")
    }
}
