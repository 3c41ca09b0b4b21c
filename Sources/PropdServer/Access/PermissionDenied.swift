/// A call touched a key (or subscribed to a pattern) its peer may not access:
/// answered as `io.propd.PermissionDenied(key)`.
public struct PermissionDenied: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key, or the pattern's text for a pattern-level check.
    public let key: String
    public let mode: AccessMode

    public init(key: String, mode: AccessMode) {
        self.key = key
        self.mode = mode
    }

    public var description: String { "permission denied: may not \(mode) \(key)" }
}
