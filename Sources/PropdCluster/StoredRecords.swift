import PropdCore

/// A property as its `p/` key holds it (JSON): the value, the evaluation
/// error, and whether the put that wrote it is a change subscribers see.
///
/// Some writes change a property's row without being a change in propd's
/// sense (a derived key declared without a value, an error cleared from a
/// key without a value): etcd records them all the same, so the record says
/// `silent`, and `kept` carries the revision the property keeps.
struct PropertyRecord: Sendable, Hashable {
    var value: JSONValue?
    var error: String?
    /// The put is not a change: history and subscribers skip it.
    var silent = false
    /// For a silent put to an existing key: the revision of its last change.
    var kept: Revision?
    /// The id of the transaction that wrote the record, when it is the
    /// transaction's marker (see ``EtcdWriteBatch/request(transaction:maxOperations:)``).
    var transaction: String?

    /// The record as its key holds it: a JSON object, its members in
    /// sorted order (as ``JSONValue`` writes objects), written directly.
    var bytes: [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(48)
        func member(_ name: UInt8) {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out += [UInt8(ascii: "\""), name, UInt8(ascii: "\""), UInt8(ascii: ":")]
        }
        if let error {
            member(UInt8(ascii: "e"))
            JSONValue.string(error).encode(into: &out)
        }
        if let kept {
            member(UInt8(ascii: "r"))
            out += String(kept.rawValue).utf8
        }
        if silent {
            member(UInt8(ascii: "s"))
            out += "true".utf8
        }
        if let transaction {
            member(UInt8(ascii: "t"))
            JSONValue.string(transaction).encode(into: &out)
        }
        if let value {
            member(UInt8(ascii: "v"))
            value.encode(into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    init(value: JSONValue?, error: String? = nil, silent: Bool = false, kept: Revision? = nil) {
        self.value = value
        self.error = error
        self.silent = silent
        self.kept = kept
    }

    /// `nil` for bytes propd did not write.
    init?(bytes: [UInt8]) {
        guard case .object(let object)? = try? JSONValue(parsingUTF8: bytes) else { return nil }
        value = object["v"]
        if case .string(let error)? = object["e"] { self.error = error }
        if case .bool(let silent)? = object["s"] { self.silent = silent }
        if case .integer(let kept)? = object["r"] { self.kept = Revision(kept) }
        if case .string(let transaction)? = object["t"] { self.transaction = transaction }
    }

    /// The change a non-silent put of this record is.
    func change(of key: Key) -> Change? {
        if silent { return nil }
        if let error { return Change(key: key, kind: .error(error), kept: value) }
        guard let value else { return nil }
        return .set(key, value)
    }
}

/// A binding as its `b/` key holds it; its revision is the key's `mod_revision`.
struct BindingValue: Sendable, Hashable {
    var expression: String
    var sources: [Key]

    var bytes: [UInt8] {
        JSONValue.object([
            "expression": .string(expression),
            "sources": .array(sources.map { .string($0.rawValue) }),
        ]).jsonBytes
    }

    init(expression: String, sources: [Key]) {
        self.expression = expression
        self.sources = sources
    }

    init?(bytes: [UInt8]) {
        guard case .object(let object)? = try? JSONValue(parsingUTF8: bytes),
            case .string(let expression)? = object["expression"],
            case .array(let sources)? = object["sources"]
        else { return nil }
        self.expression = expression
        self.sources = sources.compactMap { source in
            guard case .string(let text) = source else { return nil }
            return try? Key(text)
        }
    }
}

extension Int64 {
    /// An expiry deadline as its `x/` key holds it: decimal digits.
    var decimalBytes: [UInt8] { Array(String(self).utf8) }

    init?(decimalBytes: [UInt8]) {
        guard let value = Int64(String(decoding: decimalBytes, as: UTF8.self)) else { return nil }
        self = value
    }
}
