import PropdCore
import PropdVarlink

/// `Set`'s parameters, decoded: the keys checked for syntax, nothing yet
/// for access or limits (``IOPropdInterface`` does that, the same for both
/// ways of decoding).
struct SetParameters: Sendable {
    var values: [Key: JSONValue]
    var expect: [Key: Revision] = [:]
    /// Milliseconds, 1 to 2^31.
    var ttl: Int64?

    /// From the call's parameter object, with the contract's error for bad input.
    init(_ parameters: [String: JSONValue]) throws(VarlinkCallError) {
        let object = try parameters.requiredObject("values")
        var decoded: [Key: JSONValue] = [:]
        decoded.reserveCapacity(object.count)
        for (text, value) in object { decoded[try WireCoding.key(text)] = value }
        values = decoded
        expect = try WireCoding.expectations(parameters)
        ttl = try WireCoding.timeToLive(parameters)
    }

    /// Straight from the frame, for the usual `{"values": {...}}`: `nil` for
    /// anything else (`expect`, `ttl`, a bad key, a repeated member), which
    /// is then decoded by ``init(_:)`` with its errors.
    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        guard var parameters = try reader.beginObject(), try reader.nextMember(of: &parameters, is: "values"),
            var object = try reader.beginObject()
        else { return nil }
        var decoded: [Key: JSONValue] = [:]
        while let text = try reader.nextMember(of: &object) {
            // A key given twice keeps its last value, as a parsed object does.
            guard let key = try? Key(text) else { return nil }
            decoded[key] = try reader.readValue()
        }
        guard try reader.nextMember(of: &parameters) == nil else { return nil }
        values = decoded
    }
}
