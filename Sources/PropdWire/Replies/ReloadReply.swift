public import PropdCore

/// What a `Reload` did: the store revision after it, the errors it
/// reported (`FILE:LINE:COLUMN: message`), and the settings it applied live
/// or refused because they need a restart.
///
/// `Reload -> (revision: int, errors: []string, applied: ?[]string, refused: ?[]string)`;
/// `applied` and `refused` are sent only when not empty.
public struct ReloadReply: IOPropdReply {
    public var revision: Revision
    public var errors: [String]
    public var applied: [String]
    public var refused: [String]

    public init(revision: Revision, errors: [String] = [], applied: [String] = [], refused: [String] = []) {
        self.revision = revision
        self.errors = errors
        self.applied = applied
        self.refused = refused
    }

    public var parameters: [String: JSONValue] {
        var reply: [String: JSONValue] = ["revision": .integer(revision.rawValue), "errors": errors.wireValue]
        if !applied.isEmpty { reply["applied"] = applied.wireValue }
        if !refused.isEmpty { reply["refused"] = refused.wireValue }
        return reply
    }

    public init(parameters: [String: JSONValue]) throws(WireShapeError) {
        let fields = WireFields(parameters)
        self.init(
            revision: try fields.revision("revision"), errors: try fields.strings("errors"),
            applied: try fields.optionalStrings("applied"), refused: try fields.optionalStrings("refused"))
    }
}
