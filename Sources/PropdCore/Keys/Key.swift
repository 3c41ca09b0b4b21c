/// Why a string is not a valid key or pattern. The text is what users see in
/// `InvalidKey(key, reason)` and `InvalidPattern(pattern, reason)`.
public enum KeySyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooLong(bytes: Int)
    case tooManySegments(count: Int)
    case emptySegment(index: Int)
    case invalidCharacter(Character, segment: Int)
    case wildcardInKey(segment: Int)
    case doubleStarNotLast(segment: Int)
    case mixedWildcard(segment: Int)

    public var description: String {
        switch self {
        case .empty: return "is empty"
        case .tooLong(let bytes): return "is \(bytes) bytes long; at most \(Key.maximumBytes) are allowed"
        case .tooManySegments(let count):
            return "has \(count) segments; at most \(Key.maximumSegments) are allowed"
        case .emptySegment(let index): return "segment \(index + 1) is empty"
        case .invalidCharacter(let c, let segment):
            return "segment \(segment + 1) contains \(String(reflecting: String(c))); "
                + "segments may hold only letters, digits, '_' and '-'"
        case .wildcardInKey(let segment): return "segment \(segment + 1) is a wildcard; a key cannot contain '*'"
        case .doubleStarNotLast(let segment):
            return "segment \(segment + 1) is '**', which may only be the last segment"
        case .mixedWildcard(let segment):
            return "segment \(segment + 1) mixes '*' with other characters; a wildcard is a whole segment"
        }
    }
}

/// A property's name: 1 to 32 dot-separated segments of `[A-Za-z0-9_-]+`,
/// at most 256 bytes.
///
/// ```swift
/// let key = try Key("room.temp")
/// key.segments  // ["room", "temp"]
/// ```
public struct Key: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let maximumBytes = 256
    public static let maximumSegments = 32

    /// The key's text, e.g. `room.temp`.
    public let rawValue: String

    /// Validates `text` as a key.
    public init(_ text: String) throws(KeySyntaxError) {
        if !Key.isPlainKey(text) { try Key.validate(text, allowingWildcards: false) }
        rawValue = text
    }

    /// The dot-separated segments.
    public var segments: [Substring] { rawValue.split(separator: ".", omittingEmptySubsequences: false) }

    public var description: String { rawValue }

    /// Keys sort by their bytes, as `List` returns them.
    public static func < (lhs: Key, rhs: Key) -> Bool { lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8) }

    @inline(__always)
    static func isSegmentByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Whether `text` is a valid key, answered from its contiguous bytes in
    /// one tight loop (every key a Set names goes through here). `false`
    /// says only that ``validate(_:allowingWildcards:)`` must look, and
    /// name what is wrong.
    static func isPlainKey(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.isEmpty, bytes.count <= maximumBytes else { return false }
            var dots = 0
            var previous = UInt8(ascii: ".")
            for b in bytes {
                if b == UInt8(ascii: ".") {
                    if previous == b { return false }
                    dots += 1
                } else if !isSegmentByte(b) {
                    return false
                }
                previous = b
            }
            return previous != UInt8(ascii: ".") && dots < maximumSegments
        } ?? false
    }

    /// Checks the shared syntax of keys and patterns in one pass over the bytes.
    static func validate(_ text: String, allowingWildcards: Bool) throws(KeySyntaxError) {
        let utf8 = text.utf8
        if utf8.isEmpty { throw .empty }
        if utf8.count > maximumBytes { throw .tooLong(bytes: utf8.count) }
        var segment = 0
        var segmentLength = 0
        var stars = 0
        var others = 0
        var doubleStarSegment: Int?

        func endSegment() throws(KeySyntaxError) {
            if segmentLength == 0 { throw .emptySegment(index: segment) }
            if stars > 0 {
                if !allowingWildcards { throw .wildcardInKey(segment: segment) }
                if others > 0 || stars > 2 { throw .mixedWildcard(segment: segment) }
                if let earlier = doubleStarSegment { throw .doubleStarNotLast(segment: earlier) }
                if stars == 2 { doubleStarSegment = segment }
            } else if let earlier = doubleStarSegment {
                throw .doubleStarNotLast(segment: earlier)
            }
        }

        var index = utf8.startIndex
        while index != utf8.endIndex {
            let b = utf8[index]
            if b == UInt8(ascii: ".") {
                try endSegment()
                segment += 1
                segmentLength = 0
                stars = 0
                others = 0
            } else {
                segmentLength += 1
                if b == UInt8(ascii: "*") {
                    stars += 1
                } else if isSegmentByte(b) {
                    others += 1
                } else {
                    let character = text[index...].first ?? "?"
                    throw .invalidCharacter(character, segment: segment)
                }
            }
            index = utf8.index(after: index)
        }
        try endSegment()
        if segment + 1 > maximumSegments { throw .tooManySegments(count: segment + 1) }
    }
}
