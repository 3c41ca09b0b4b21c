import PropdCore
import PropdService
import PropdVarlink

/// What a peer with read rules sees of bindings: the keys it may not read
/// stay unnamed. A binding whose sources include such a key shows its
/// expression as ``hiddenExpression`` and only the sources the peer may read.
struct ReadRedaction {
    /// Stands for an expression that names a key the caller may not read.
    static let hiddenExpression = "<hidden: names keys you may not read>"
    /// Stands for a key the caller may not read in a `BindingCycle`.
    static let hiddenKey = "<hidden>"

    let access: any AccessCheck
    let peer: VarlinkPeerCredentials?

    func mayRead(_ key: Key) -> Bool { access.allows(.read, key, peer) }

    func redact(_ binding: BindingDescription) -> BindingDescription {
        guard !binding.sources.allSatisfy(mayRead) else { return binding }
        var shown = binding
        shown.expression = Self.hiddenExpression
        shown.sources = binding.sources.filter(mayRead)
        return shown
    }

    /// `properties` with the expressions of bindings that name unreadable
    /// keys hidden; `sources` gives each derived key's sources.
    func redact(_ properties: [Property], sources: [Key: [Key]]) -> [Property] {
        properties.map { property in
            guard property.binding != nil, let keys = sources[property.key], !keys.allSatisfy(mayRead) else {
                return property
            }
            var shown = property
            shown.binding = Self.hiddenExpression
            return shown
        }
    }
}

extension IOPropdInterface {
    /// The properties as `peer` may see them (see ``ReadRedaction``).
    func redacted(_ properties: [Property], for peer: VarlinkPeerCredentials?) throws(VarlinkCallError) -> [Property] {
        guard access.filtersReads(for: peer), properties.contains(where: { $0.binding != nil }) else { return properties }
        let bindings = try mapped { () throws(ServiceError) in try service.bindings(matching: nil) }
        var sources: [Key: [Key]] = [:]
        for binding in bindings { sources[binding.key] = binding.sources }
        return ReadRedaction(access: access, peer: peer).redact(properties, sources: sources)
    }
}
