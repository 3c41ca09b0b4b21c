import PropdCore
import PropdVarlink

/// `Get`'s parameters, decoded: the keys checked for syntax, nothing yet
/// for access or limits (``IOPropdInterface`` does that, the same for both
/// ways of decoding).
struct GetParameters: Sendable {
    var keys: [Key]
    /// Read the keys as they were at this revision (MVCC history).
    var revision: Revision?

    /// From the call's parameter object, with the contract's error for bad input.
    init(_ parameters: [String: JSONValue]) throws(VarlinkCallError) {
        keys = try WireCoding.keys(parameters, "keys")
        revision = try WireCoding.nonNegative(parameters, "revision").map { Revision($0) }
    }

    /// Straight from the frame, for the usual `{"keys": [...]}`: `nil` for
    /// anything else (`revision`, a bad key, a repeated member), which is
    /// then decoded by ``init(_:)`` with its errors.
    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        guard var parameters = try reader.beginObject(), try reader.nextMember(of: &parameters) == "keys",
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
