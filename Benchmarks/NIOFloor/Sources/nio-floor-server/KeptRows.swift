/// Each key's newest history row ids, for a history that keeps `keep` rows
/// per key (the C floor's `key_rows` under `-DTRIM_KEEP`): a fixed table of
/// 1,024 keys, open addressing on the key's bytes, no allocation once a key
/// is in it. Keys past the table's size are not trimmed; the benchmarks
/// write far fewer.
struct KeptRows {
    private struct Rows {
        var key: [UInt8]
        var ids: [Int64]
        var written = 0
    }

    let keep: Int
    private var table = [Rows?](repeating: nil, count: 1024)

    init(keep: Int) {
        self.keep = keep
    }

    /// Records `id` as `key`'s newest row; returns the id of the row it
    /// pushes out of the newest `keep`, which is then to be deleted.
    mutating func append(_ id: Int64, for key: UnsafeRawBufferPointer) -> Int64? {
        guard let slot = slot(of: key), var rows = table[slot] else { return nil }
        table[slot] = nil  // `rows` alone holds its ids while they change
        defer { table[slot] = rows }
        let position = rows.written % keep
        let pushedOut = rows.written >= keep ? rows.ids[position] : nil
        rows.ids[position] = id
        rows.written += 1
        return pushedOut
    }

    /// The oldest row id any key keeps (each key's oldest of its newest
    /// `keep`, or its first row), at most `ceiling`: every row below it
    /// can go in one range delete (the C floor's `-DBULK_TRIM`).
    func oldestKept(atMost ceiling: Int64) -> Int64 {
        var oldest = ceiling
        for case let rows? in table {
            oldest = min(oldest, rows.ids[rows.written >= keep ? rows.written % keep : 0])
        }
        return oldest
    }

    private mutating func slot(of key: UnsafeRawBufferPointer) -> Int? {
        var hash: UInt32 = 5381
        for byte in key { hash = hash &* 33 &+ UInt32(byte) }
        for probe in 0..<UInt32(table.count) {
            let slot = Int((hash &+ probe) & UInt32(table.count - 1))
            guard let rows = table[slot] else {
                table[slot] = Rows(key: Array(key), ids: [Int64](repeating: 0, count: keep))
                return slot
            }
            if rows.key.elementsEqual(key) { return slot }
        }
        return nil
    }
}
