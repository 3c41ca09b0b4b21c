import PropdCore

/// `Get`'s keys read straight from the frame, checked for syntax only
/// (``IOPropdInterface`` checks the count and access, as for a parsed call).
struct GetParameters: Sendable {
    var keys: [Key]

    /// For the usual `{"keys": [...]}`: `nil` for anything else (`revision`,
    /// a bad key, a repeated member), which is then decoded from the parsed
    /// call with its errors.
    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        guard var parameters = try reader.beginObject(), try reader.nextMember(of: &parameters, is: "keys"),
            case .array(let texts) = try reader.readValue(),
            try reader.nextMember(of: &parameters) == nil
        else { return nil }
        var keys: [Key] = []
        keys.reserveCapacity(texts.count)
        for text in texts {
            guard case .string(let text) = text, let key = try? Key(text) else { return nil }
            keys.append(key)
        }
        self.keys = keys
    }
}
