import PropdCore

extension SQLiteConnection {
    /// `select` (a query over `column`) restricted to the keys `pattern` can
    /// match, in key order: the one key of an exact pattern, the range under
    /// its literal prefix, or every key. Rows still need `pattern.matches`.
    func statement(_ select: String, keysIn column: String, matching pattern: KeyPattern?) throws(SQLiteError)
        -> SQLiteStatement
    {
        guard let pattern else { return try statement("\(select) ORDER BY \(column)") }
        if pattern.isExactKey {
            let exact = try statement("\(select) WHERE \(column) = ?1")
            try exact.bind(1, pattern.rawValue)
            return exact
        }
        guard !pattern.literalPrefix.isEmpty else { return try statement("\(select) ORDER BY \(column)") }
        // Keys under `prefix.`: from "prefix." up to (excluding) "prefix/" ('/' follows '.').
        let prefix = pattern.literalPrefix
        let range = try statement("\(select) WHERE \(column) >= ?1 AND \(column) < ?2 ORDER BY \(column)")
        try range.bind(1, prefix + ".")
        try range.bind(2, prefix + "/")
        return range
    }
}
