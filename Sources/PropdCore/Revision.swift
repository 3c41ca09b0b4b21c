/// A point in the store's history: one store-wide counter that starts at 1
/// with the first write and rises by exactly 1 per committed write request.
/// `Revision.none` (0) means "before any write", and in expectations "the key
/// must not exist".
public struct Revision: RawRepresentable, Sendable, Hashable, Comparable, Codable,
    ExpressibleByIntegerLiteral, CustomStringConvertible
{
    public var rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ value: Int64) { self.rawValue = value }
    public init(integerLiteral value: Int64) { self.rawValue = value }

    /// Before any write; as an expectation, "must not exist".
    public static let none: Revision = 0

    /// The revision after this one.
    public var next: Revision { Revision(rawValue + 1) }

    public static func < (lhs: Revision, rhs: Revision) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
