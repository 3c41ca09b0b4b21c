/// A JSON object that writes its own compact bytes: a reply sent often
/// enough that building a ``JSONValue`` tree for each would show (a write's
/// `{"revision":42}`).
///
/// ```swift
/// struct Pong: JSONObjectEncodable {
///     var count: Int64
///     func encodeJSONObject(into out: inout [UInt8]) {
///         out.append(contentsOf: #"{"count":"#.utf8)
///         JSONValue.integer(count).encode(into: &out)
///         out.append(UInt8(ascii: "}"))
///     }
/// }
/// ```
public protocol JSONObjectEncodable: Sendable {
    /// Appends the object's compact JSON text, braces included.
    func encodeJSONObject(into out: inout [UInt8])
}
