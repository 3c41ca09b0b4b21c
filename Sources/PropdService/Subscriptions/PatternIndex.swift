public import PropdCore

/// Which entries' patterns match a key, without testing every pattern.
///
/// Exact keys (patterns without a wildcard) sit in a dictionary; the other
/// patterns sit in a trie of their segments, with `*` and `**` as children of
/// their own. Matching walks only the key's segments: at each level it follows
/// the literal child named by the segment and the `*` child, and collects the
/// `**` entries, so the work grows with the key's length and the number of
/// wildcard branches, not with the number of patterns.
///
/// ```swift
/// var index = PatternIndex<Int>()
/// index.insert(try KeyPattern("room.*"), 1)
/// index.insert(try KeyPattern("**"), 2)
/// index.matches(try Key("room.temp"))  // [1, 2] (in no particular order)
/// ```
/// > Tip: an entry inserted under several patterns that all match a key is
/// > reported once per matching pattern; callers that need each entry once
/// > deduplicate (the hub does it with a stamp per subscriber).
public struct PatternIndex<Entry: Hashable> {
    private var exact: [String: [Entry]] = [:]
    private var root = TrieNode()
    /// Number of (pattern, entry) pairs stored.
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// Adds `entry` under `pattern`. Inserting the same pair twice stores it twice.
    public mutating func insert(_ pattern: KeyPattern, _ entry: Entry) {
        count += 1
        if pattern.isExactKey {
            exact[pattern.rawValue, default: []].append(entry)
            return
        }
        root.insert(pattern.segments[...], entry)
    }

    /// Removes one occurrence of `entry` under `pattern`; returns whether it was there.
    @discardableResult
    public mutating func remove(_ pattern: KeyPattern, _ entry: Entry) -> Bool {
        let removed: Bool
        if pattern.isExactKey {
            removed = Self.removeOne(entry, from: &exact[pattern.rawValue])
        } else {
            removed = root.remove(pattern.segments[...], entry)
        }
        if removed { count -= 1 }
        return removed
    }

    /// Calls `body` with each entry whose pattern matches `key` (once per matching pattern).
    public func forEachMatch(_ key: Key, _ body: (Entry) -> Void) {
        if let entries = exact[key.rawValue] {
            for entry in entries { body(entry) }
        }
        guard !root.isEmpty else { return }
        let segments = key.segments
        root.visit(segments, from: 0, body)
    }

    /// The entries whose pattern matches `key` (once per matching pattern).
    public func matches(_ key: Key) -> [Entry] {
        var result: [Entry] = []
        forEachMatch(key) { result.append($0) }
        return result
    }

    static func removeOne(_ entry: Entry, from list: inout [Entry]?) -> Bool {
        guard var entries = list, let i = entries.firstIndex(of: entry) else { return false }
        entries.remove(at: i)
        list = entries.isEmpty ? nil : entries
        return true
    }

    /// One level of the trie. A value type: the index is owned by one lock and
    /// copied never, so the nodes need no reference semantics.
    struct TrieNode {
        var literal: [String: TrieNode] = [:]
        /// The `*` child.
        var one: [TrieNode] = []  // zero or one element; an array because a struct cannot hold itself
        /// Entries whose pattern ends with `**` right here.
        var rest: [Entry] = []
        /// Entries whose pattern ends exactly here.
        var terminal: [Entry] = []

        var isEmpty: Bool { literal.isEmpty && one.isEmpty && rest.isEmpty && terminal.isEmpty }

        mutating func insert(_ segments: ArraySlice<KeyPattern.Segment>, _ entry: Entry) {
            guard let first = segments.first else {
                terminal.append(entry)
                return
            }
            let tail = segments.dropFirst()
            switch first {
            case .rest:
                rest.append(entry)
            case .one:
                if one.isEmpty { one.append(TrieNode()) }
                one[0].insert(tail, entry)
            case .literal(let name):
                literal[name, default: TrieNode()].insert(tail, entry)
            }
        }

        mutating func remove(_ segments: ArraySlice<KeyPattern.Segment>, _ entry: Entry) -> Bool {
            guard let first = segments.first else {
                var list: [Entry]? = terminal
                defer { terminal = list ?? [] }
                return PatternIndex.removeOne(entry, from: &list)
            }
            let tail = segments.dropFirst()
            switch first {
            case .rest:
                var list: [Entry]? = rest
                defer { rest = list ?? [] }
                return PatternIndex.removeOne(entry, from: &list)
            case .one:
                guard !one.isEmpty else { return false }
                let removed = one[0].remove(tail, entry)
                if one[0].isEmpty { one.removeAll() }
                return removed
            case .literal(let name):
                guard var child = literal[name] else { return false }
                // Take the child out while mutating it so it is not copied on write.
                literal[name] = nil
                let removed = child.remove(tail, entry)
                if !child.isEmpty { literal[name] = child }
                return removed
            }
        }

        func visit(_ key: [Substring], from i: Int, _ body: (Entry) -> Void) {
            if i == key.count {
                for entry in terminal { body(entry) }
                return
            }
            // `**` needs one or more remaining segments: there is at least one here.
            for entry in rest { body(entry) }
            if let child = literal[String(key[i])] {
                child.visit(key, from: i + 1, body)
            }
            if let child = one.first {
                child.visit(key, from: i + 1, body)
            }
        }
    }
}
