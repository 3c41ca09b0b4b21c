import PropdCore

extension HistoryCompaction {
    /// The history rows the writer committed since the store opened and
    /// has neither removed nor left behind, in revision order, with how
    /// many each key has and where its next one is.
    ///
    /// Rows are addressed by an index that never changes while they are
    /// in the window: the storage before ``head`` is dropped in bulk, and
    /// the indexes stay those of the rows' appending. Each key with rows in
    /// the window has a *slot*, a small number the window's per-key arrays
    /// are indexed by, so that a pass walks rows without hashing keys; a
    /// key's slot is freed, for another key, once it has no rows here.
    struct Window {
        private var revisions: [Int64] = []
        private var slots: [Int32] = []
        /// The index of the same key's next row, or -1 while it has none.
        private var nextOfKey: [Int] = []
        /// The index of `revisions[0]`.
        private var base = 0
        /// The index of the window's oldest row.
        private(set) var head = 0

        private var slotOf: [Key: Int32] = [:]
        private var keys: [Key] = []
        /// Per slot: the key's rows in the window, its newest row's index,
        /// and whether it may have rows older than its window rows (from
        /// before the store opened, or left behind), cleared once a pass
        /// removed the rows behind its oldest window row.
        private var counts: [Int] = []
        private var newest: [Int] = []
        private var olderRows: [Bool] = []
        private var freeSlots: [Int32] = []

        /// The index the next appended row gets.
        var end: Int { base + revisions.count }
        /// How many keys have rows in the window.
        var keyCount: Int { slotOf.count }
        /// How many slots there are, in use or free.
        var slotCapacity: Int { keys.count }

        mutating func append(_ revision: Int64, _ key: Key) {
            let index = end
            let slot: Int32
            if let known = slotOf[key] {
                slot = known
                nextOfKey[newest[Int(slot)] - base] = index
            } else {
                slot = takeSlot(for: key)
                slotOf[key] = slot
            }
            revisions.append(revision)
            slots.append(slot)
            nextOfKey.append(-1)
            counts[Int(slot)] += 1
            newest[Int(slot)] = index
        }

        func revision(at index: Int) -> Int64 { revisions[index - base] }
        func slot(at index: Int) -> Int { Int(slots[index - base]) }
        func key(ofSlot slot: Int) -> Key { keys[slot] }

        /// The index of the key's next row after the one at `index`.
        func next(after index: Int) -> Int? {
            let next = nextOfKey[index - base]
            return next < 0 ? nil : next
        }

        /// How many rows the key in `slot` has in the window.
        func rows(ofSlot slot: Int) -> Int { counts[slot] }

        func mayHaveOlderRows(slot: Int) -> Bool { olderRows[slot] }

        /// Forgets the rows before `newHead`; per slot touched, how many of
        /// its rows went from history and how many stay in it.
        mutating func advance(to newHead: Int, _ passed: [PassedRows]) {
            for rows in passed {
                let slot = Int(rows.slot)
                counts[slot] -= rows.removed + rows.leftBehind
                olderRows[slot] = rows.leftBehind > 0
                if counts[slot] == 0 {
                    slotOf[keys[slot]] = nil
                    freeSlots.append(rows.slot)
                }
            }
            head = newHead
            let dropped = head - base
            // Dropped in bulk, when at least half the storage is behind the head.
            if dropped >= 4096, dropped * 2 >= revisions.count {
                revisions.removeFirst(dropped)
                slots.removeFirst(dropped)
                nextOfKey.removeFirst(dropped)
                base = head
            }
        }

        private mutating func takeSlot(for key: Key) -> Int32 {
            if let slot = freeSlots.popLast() {
                keys[Int(slot)] = key
                counts[Int(slot)] = 0
                olderRows[Int(slot)] = true
                return slot
            }
            keys.append(key)
            counts.append(0)
            newest.append(-1)
            olderRows.append(true)
            return Int32(keys.count - 1)
        }
    }

    /// What a pass did to one key's window rows.
    struct PassedRows {
        var slot: Int32
        var removed: Int
        var leftBehind: Int
    }
}
