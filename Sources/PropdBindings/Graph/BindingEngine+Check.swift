public import PropdCore

/// What a binding would read, found without declaring it.
public struct BindingCheck: Sendable, Hashable {
    /// The keys the expression names outside closures, in order of first use.
    public var sources: [Key]
    /// Whether the binding follows keys named at run time (`flatMap { key(…) }`),
    /// so it may read keys beyond ``sources``.
    public var followsKeys: Bool
}

extension BindingEngine {
    /// ``validate(key:expression:)`` with what an access check needs: the
    /// static sources and whether the binding can reach other keys.
    public func check(key: Key, expression: String) throws(BindingError) -> BindingCheck {
        let compiled = try plan(key: key, expression: expression)
        return BindingCheck(sources: compiled.sources, followsKeys: compiled.usesFlatMap)
    }
}
