import PropdCore

/// How two patterns relate as sets of keys, decided on their segments alone.
extension KeyPattern {
    /// Whether every key `other` matches is also matched by `self`
    /// (`room.**` covers `room.*.temp`; `room.*` does not cover `room.**`).
    func covers(_ other: KeyPattern) -> Bool {
        let mine = segments
        let theirs = other.segments
        for (i, segment) in mine.enumerated() {
            switch segment {
            case .rest:
                // '**' takes one or more segments; whatever `other` has left
                // (if anything) stands for one or more segments too.
                return theirs.count > i
            case .one:
                guard i < theirs.count else { return false }
                if case .rest = theirs[i] { return false }  // '**' may be several segments
            case .literal(let text):
                guard i < theirs.count, theirs[i] == .literal(text) else { return false }
            }
        }
        return theirs.count == mine.count
    }

    /// Whether some key is matched by both patterns.
    func overlaps(_ other: KeyPattern) -> Bool {
        let a = segments
        let b = other.segments
        var i = 0
        while i < a.count, i < b.count {
            switch (a[i], b[i]) {
            case (.rest, _), (_, .rest):
                return true  // the other side has a segment here, so a key exists
            case (.literal(let x), .literal(let y)):
                if x != y { return false }
            default:
                break  // '*' meets a literal or '*'
            }
            i += 1
        }
        return a.count == b.count
    }
}
