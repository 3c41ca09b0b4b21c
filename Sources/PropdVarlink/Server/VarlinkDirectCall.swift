import NIOCore
import PropdJSON

/// A call read straight from its frame by its method's direct decoder (see
/// ``VarlinkMethod/decodingDirectly(_:then:)``), ready to start.
struct VarlinkDirectCall {
    /// The fully qualified method name.
    let name: String
    /// Its method's ``VarlinkMethod/startingAfterEarlierCalls()``: all
    /// the call needs of the method once decoded (the method itself, a
    /// name and closures, would be retained and released with every copy).
    let startsAfterEarlierCalls: Bool
    let oneway: Bool
    let start: VarlinkMethod.DirectStart

    /// The call in `frame`, when it names a method with a direct decoder,
    /// has the usual shape (`method` first, `parameters` next, then nothing
    /// but `oneway`, `more: false` or `upgrade: false`) and is valid JSON
    /// throughout; `nil` otherwise, and then the frame is decoded the usual
    /// way, which gives every answer (errors included) exactly as before.
    ///
    /// `recent` is the method the connection's last direct call named: a
    /// connection mostly repeats one method, found then without a look-up.
    static func decode(
        _ frame: ByteBuffer, registry: VarlinkRegistry, recent: inout VarlinkDirectMethod?, maximumDepth: Int
    ) -> VarlinkDirectCall? {
        frame.withUnsafeReadableBytes { bytes in
            var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
            return try? decode(&reader, registry: registry, recent: &recent)
        }
    }

    private static func decode(
        _ reader: inout JSONReader, registry: VarlinkRegistry, recent: inout VarlinkDirectMethod?
    ) throws(JSONParseError) -> VarlinkDirectCall? {
        guard var message = try reader.beginObject(), try reader.nextMember(of: &message, is: "method"),
            case .string(let name) = try reader.readValue()
        else { return nil }
        let method: VarlinkDirectMethod
        if let recent, recent.name == name {
            method = recent
        } else {
            guard let found = registry.directMethod(name) else { return nil }
            method = found
            recent = found
        }
        guard try reader.nextMember(of: &message, is: "parameters"), let start = method.decoder(&reader) else {
            return nil
        }
        var oneway: Bool?
        while let member = try reader.nextMember(of: &message) {
            switch (member, try reader.readValue()) {
            case ("oneway", .bool(let flag)) where oneway == nil: oneway = flag
            case ("more", .bool(false)), ("upgrade", .bool(false)): continue
            default: return nil
            }
        }
        try reader.finish()
        return VarlinkDirectCall(
            name: name, startsAfterEarlierCalls: method.startsAfterEarlierCalls, oneway: oneway ?? false, start: start)
    }
}
