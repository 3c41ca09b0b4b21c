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
///     {"expression":"room.temp.map { $0 * 9 / 5 + 32 }","key":"room.f","sources":["room.temp"]}
///   ]
/// }
/// ```
///
/// Properties are the io.propd `Property` objects and bindings the `Binding`
/// objects, one per line so that dumps diff well. `revision` is the store
/// revision the dump was read at (for information: load does not restore it).
struct DumpDocument: Equatable {
    static let format = "propd-dump"
    static let version: Int64 = 1

    struct PlainValue: Equatable {
        var key: String
        var value: JSONValue
    }

    struct Binding: Equatable {
        var key: String
        var expression: String
    }

    var revision: Revision
    var properties: [JSONValue]
    var bindings: [JSONValue]

    init(revision: Revision, properties: [Property], bindings: [BindingInfo]) {
        self.revision = revision
        self.properties = properties.map(WireJSON.property)
        self.bindings = bindings.map(WireJSON.binding)
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

    /// The plain properties to Set: those with a value and no binding.
    func plainValues() throws(DumpError) -> [PlainValue] {
        let derived = Set(try declaredBindings().map(\.key))
        var values: [PlainValue] = []
        for (i, item) in properties.enumerated() {
            guard case .string(let key)? = item["key"] else { throw DumpError("properties[\(i)] has no \"key\"") }
            guard item["binding"] == nil, !derived.contains(key), let value = item["value"] else { continue }
            values.append(PlainValue(key: key, value: value))
        }
        return values
    }

    func declaredBindings() throws(DumpError) -> [Binding] {
        var result: [Binding] = []
        for (i, item) in bindings.enumerated() {
            guard case .string(let key)? = item["key"], case .string(let expression)? = item["expression"] else {
                throw DumpError("bindings[\(i)] needs a \"key\" and an \"expression\"")
            }
            result.append(Binding(key: key, expression: expression))
        }
        return result
    }
}

struct DumpError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
