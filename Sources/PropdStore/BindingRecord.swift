public import PropdCore

/// A binding as the store keeps it: the expression as declared and the
/// sources found when it was parsed. The store does not interpret either.
public struct BindingRecord: Sendable, Hashable {
    /// The derived key.
    public var key: Key
    /// The expression text, exactly as declared.
    public var expression: String
    /// The keys the expression names statically.
    public var sources: [Key]
    /// The revision that declared (or last replaced) it.
    public var revision: Revision

    public init(key: Key, expression: String, sources: [Key], revision: Revision) {
        self.key = key
        self.expression = expression
        self.sources = sources
        self.revision = revision
    }
}
