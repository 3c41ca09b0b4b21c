/// A set of keys named like a key whose segments may also be `*` (exactly one
/// segment) or, as the last segment only, `**` (one or more segments).
///
/// ```swift
/// let p = try KeyPattern("room.*")
/// p.matches(try Key("room.temp"))   // true
/// p.matches(try Key("room.a.b"))    // false: '*' is one segment
/// try KeyPattern("room.**").matches(try Key("room.a.b"))  // true
/// ```
/// > Tip: neither `room.*` nor `room.**` matches `room` itself; `**` alone matches every key.
public struct KeyPattern: Sendable, Hashable, CustomStringConvertible {
    public enum Segment: Sendable, Hashable {
        case literal(String)
        /// `*`: exactly one segment.
        case one
        /// `**`: one or more segments; only ever last.
        case rest
    }

    /// The pattern's text, e.g. `room.*`.
    public let rawValue: String
    public let segments: [Segment]

    /// The pattern that matches every key.
    public static let all: KeyPattern = KeyPattern(validated: "**")

    /// Validates `text` as a pattern.
    public init(_ text: String) throws(KeySyntaxError) {
        try Key.validate(text, allowingWildcards: true)
        self.init(validated: text)
    }

    private init(validated text: String) {
        rawValue = text
        segments = text.split(separator: ".", omittingEmptySubsequences: false).map { part in
            switch part {
            case "*": return .one
            case "**": return .rest
            default: return .literal(String(part))
            }
        }
    }

    public var description: String { rawValue }

    /// True when the pattern has no wildcard, so it names exactly one key.
    public var isExactKey: Bool {
        segments.allSatisfy { if case .literal = $0 { true } else { false } }
    }

    /// The literal segments before the first wildcard, joined with dots
    /// (`room` for `room.*.temp`); empty when the pattern starts with a wildcard.
    /// Subscription indexes and range scans of the store use it.
    public var literalPrefix: String {
        var parts: [String] = []
        for segment in segments {
            guard case .literal(let s) = segment else { break }
            parts.append(s)
        }
        return parts.joined(separator: ".")
    }

    /// Whether `key` is one of the keys the pattern names.
    public func matches(_ key: Key) -> Bool {
        matches(keySegments: key.segments)
    }

    /// Whether a key, given as its segments, is one of the keys the pattern names.
    public func matches(keySegments: [Substring]) -> Bool {
        var i = 0
        for segment in segments {
            switch segment {
            case .rest:
                return keySegments.count > i
            case .one:
                guard i < keySegments.count else { return false }
            case .literal(let s):
                guard i < keySegments.count, keySegments[i] == s else { return false }
            }
            i += 1
        }
        return i == keySegments.count
    }
}
