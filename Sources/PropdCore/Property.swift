/// A key with its current value and the revisions of its last change and of
/// its creation, as `Get` and `List` return it.
public struct Property: Sendable, Hashable {
    public var key: Key
    /// `nil` only while a derived property has never produced a value.
    public var value: JSONValue?
    /// The revision of the last change.
    public var revision: Revision
    /// The revision at which the key was created.
    public var created: Revision
    /// The binding's expression, for a derived property.
    public var binding: String?
    /// A derived property's current evaluation error, if any.
    public var error: String?
    /// When the key expires (it was set with a `ttl`), in milliseconds since
    /// the Unix epoch; `nil` for a key that does not expire.
    public var expires: Int64?

    public init(
        key: Key, value: JSONValue?, revision: Revision, created: Revision,
        binding: String? = nil, error: String? = nil, expires: Int64? = nil
    ) {
        self.expires = expires
        self.key = key
        self.value = value
        self.revision = revision
        self.created = created
        self.binding = binding
        self.error = error
    }
}
