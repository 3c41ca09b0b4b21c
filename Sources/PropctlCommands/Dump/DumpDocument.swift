import PropdClient
import PropdCore

/// What `propctl dump` writes and `propctl load` reads:
///
/// ```json
/// {
///   "format": "propd-dump",
///   "version": 1,
///   "revision": 42,
///   "properties": [
///     {"created":3,"key":"room.temp","revision":41,"value":21.5},
///     {"binding":"room.temp.map { $0 * 9 / 5 + 32 }","created":5,"key":"room.f","revision":41,"value":70.7}
///   ],
///   "bindings": [
///     {"expression":"room.temp.map { $0 * 9 / 5 + 32 }","key":"room.f","sources":["room.temp"],
///      "state":{"states":[]}}
///   ]
/// }
/// ```
///
/// Properties are the io.propd `Property` objects (with `expires` for keys
/// that expire) and bindings the `Binding` objects with their operator
/// `state`, one per line so that dumps diff well. `revision` is the store
/// revision the dump was read at (for information: load does not restore it).
/// The fields are described in README.md ("propctl dump and load").
struct DumpDocument: Equatable {
    static let format = "propd-dump"
    static let version: Int64 = 1

    struct PlainValue: Equatable {
        var key: String
        var value: JSONValue
        /// When the key expires (milliseconds since the epoch).
        var expires: Int64? = nil
        /// A derived key's value, written before its binding is restored with its state.
        var isDerived = false
    }

    struct Binding: Equatable {
        var key: String
        var expression: String
        /// The operator state to continue from; `nil` (an older dump) evaluates afresh.
        var state: JSONValue? = nil
    }

    var revision: Revision
    var properties: [JSONValue]
    var bindings: [JSONValue]

    init(revision: Revision, properties: [Property], bindings: [BindingInfo]) {
        self.revision = revision
        self.properties = properties.map(WireJSON.property)
        // With their operator state, which `load` gives back to `Bind`.
        self.bindings = bindings.map(\.wireValue)
    }

    var text: String {
        func list(_ items: [JSONValue]) -> String {
            items.isEmpty ? "[]" : "[\n" + items.map { "    " + $0.jsonString }.joined(separator: ",\n") + "\n  ]"
        }
        return """
            {
              "format": "\(Self.format)",
              "version": \(Self.version),
              "revision": \(revision.rawValue),
              "properties": \(list(properties)),
              "bindings": \(list(bindings))
            }

            """
    }

    /// A dump read back; anything that is not a dump is an error naming what is wrong.
    init(parsing text: String) throws(DumpError) {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: text)
        } catch {
            throw DumpError("not JSON: \(error)")
        }
        guard case .object(let o) = root, o["format"] == .string(Self.format) else {
            throw DumpError("not a propd dump (no \"format\": \"\(Self.format)\")")
        }
        guard o["version"] == .integer(Self.version) else {
            throw DumpError("dump version \(o["version"]?.jsonString ?? "missing") is not supported (this propctl reads \(Self.version))")
        }
        guard case .array(let properties)? = o["properties"], case .array(let bindings)? = o["bindings"] else {
            throw DumpError("\"properties\" and \"bindings\" must be arrays")
        }
        revision = Revision(o["revision"].flatMap { if case .integer(let i) = $0 { i } else { nil } } ?? 0)
        self.properties = properties
        self.bindings = bindings
    }

    /// The values to Set: plain properties with a value, and the values of
    /// derived keys whose binding is restored with its state (it does not
    /// evaluate again, so its value must be written first).
    func plainValues() throws(DumpError) -> [PlainValue] {
        var stateful: Set<String> = []
        var derived: Set<String> = []
        for binding in try declaredBindings() {
            derived.insert(binding.key)
            if binding.state != nil { stateful.insert(binding.key) }
        }
        var values: [PlainValue] = []
        for (i, item) in properties.enumerated() {
            guard case .string(let key)? = item["key"] else { throw DumpError("properties[\(i)] has no \"key\"") }
            guard let value = item["value"] else { continue }
            let isDerived = item["binding"] != nil || derived.contains(key)
            guard !isDerived || stateful.contains(key) else { continue }
            var expires: Int64?
            if case .integer(let deadline)? = item["expires"] { expires = deadline }
            values.append(PlainValue(key: key, value: value, expires: isDerived ? nil : expires, isDerived: isDerived))
        }
        return values
    }

    func declaredBindings() throws(DumpError) -> [Binding] {
        var result: [Binding] = []
        for (i, item) in bindings.enumerated() {
            guard case .string(let key)? = item["key"], case .string(let expression)? = item["expression"] else {
                throw DumpError("bindings[\(i)] needs a \"key\" and an \"expression\"")
            }
            var state: JSONValue?
            switch item["state"] {
            case nil, .null?: state = nil
            case .object(let object)?: state = .object(object)
            default: throw DumpError("bindings[\(i)].state must be an object")
            }
            result.append(Binding(key: key, expression: expression, state: state))
        }
        return result
    }
}

struct DumpError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
