import PropdCore

extension HistoryCompaction {
    /// Which rows of the window one pass removes and which it leaves
    /// behind, decided a revision at a time from the oldest: a revision's
    /// rows go together, or the pass stops before them.
    struct PassPlan {
        /// The first row the pass did not reach.
        private(set) var head: Int
        /// Revisions whose rows all go, as ranges (upper bound excluded).
        private(set) var ranges: [Range<Int64>] = []
        /// Rows that go one by one: those of a revision with a row left behind.
        private(set) var single: [(revision: Int64, slot: Int)] = []
        private(set) var newestRemoved: Int64?
        /// Per slot, what the walk decided; only the slots in `touched` are
        /// anything but zero, and `clear()` zeroes them again, so the arrays
        /// serve pass after pass without being rebuilt.
        private(set) var removed: [Int] = []
        private(set) var leftBehind: [Int] = []
        private(set) var firstRemoved: [Int] = []
        private(set) var lastRemoved: [Int] = []
        private(set) var touched: [Int32] = []

        init() { head = 0 }

        /// Walks `window` from its head, at most about `limit` rows, removing
        /// no row above `floor`. A row that must stay is left behind when the
        /// rows from it on number more than `windowLimit`; otherwise the pass
        /// stops at its revision. Rows above `floor` are left behind while
        /// the rows from them on number more than `capacity`: a floor held
        /// for long (a slow consumer's grace) keeps them all in history, and
        /// the window's memory stays bounded.
        mutating func walk(_ window: Window, keep: Int, floor: Int64?, limit: Int, windowLimit: Int, capacity: Int) {
            fit(window.slotCapacity)
            head = window.head
            let end = min(window.end, head + limit)
            var index = head
            var range: Range<Int64>?
            while index < end {
                let revision = window.revision(at: index)
                var next = index
                while next < window.end, window.revision(at: next) == revision { next += 1 }
                let rowsFromHere = window.end - index
                if let floor, revision > floor {
                    guard rowsFromHere > capacity else { break }
                    for row in index..<next { leaveBehind(window.slot(at: row)) }
                    if let whole = range { ranges.append(whole) }
                    range = nil
                    index = next
                    continue
                }
                var leavesOne = false
                var stops = false
                for row in index..<next {
                    switch fate(window.slot(at: row), window, keep, rowsFromHere, windowLimit) {
                    case .removed: break
                    case .leftBehind: leavesOne = true
                    case .stays: stops = true
                    }
                    if stops { break }
                }
                if stops { break }
                for row in index..<next {
                    let slot = window.slot(at: row)
                    if fate(slot, window, keep, rowsFromHere, windowLimit) == .removed {
                        touch(slot)
                        if removed[slot] == 0 { firstRemoved[slot] = row }
                        removed[slot] += 1
                        lastRemoved[slot] = row
                        newestRemoved = revision
                        if leavesOne { single.append((revision, slot)) }
                    } else {
                        leaveBehind(slot)
                    }
                }
                if leavesOne {
                    if let whole = range { ranges.append(whole) }
                    range = nil
                } else {
                    range = (range?.lowerBound ?? revision)..<(revision + 1)
                }
                index = next
            }
            if let whole = range { ranges.append(whole) }
            head = index
        }

        /// What the walk did, per slot touched.
        var passed: [PassedRows] {
            touched.map { PassedRows(slot: $0, removed: removed[Int($0)], leftBehind: leftBehind[Int($0)]) }
        }

        /// Zeroes what the last walk set, for the next.
        mutating func clear() {
            for slot in touched.lazy.map(Int.init) {
                removed[slot] = 0
                leftBehind[slot] = 0
            }
            touched.removeAll(keepingCapacity: true)
            ranges.removeAll(keepingCapacity: true)
            single.removeAll(keepingCapacity: true)
            newestRemoved = nil
        }

        private mutating func leaveBehind(_ slot: Int) {
            touch(slot)
            leftBehind[slot] += 1
        }

        private mutating func touch(_ slot: Int) {
            if removed[slot] == 0, leftBehind[slot] == 0 { touched.append(Int32(slot)) }
        }

        private mutating func fit(_ slots: Int) {
            guard removed.count < slots else { return }
            let more = slots - removed.count
            removed.append(contentsOf: repeatElement(0, count: more))
            leftBehind.append(contentsOf: repeatElement(0, count: more))
            firstRemoved.append(contentsOf: repeatElement(0, count: more))
            lastRemoved.append(contentsOf: repeatElement(0, count: more))
        }

        private enum Fate { case removed, leftBehind, stays }

        /// A row of the key in `slot` at the walk's position, the key's
        /// earlier window rows in this pass already decided.
        private func fate(_ slot: Int, _ window: Window, _ keep: Int, _ rowsFromHere: Int, _ windowLimit: Int) -> Fate {
            // Once a key has a row left behind in this pass, its later rows
            // stay: one removed would cut the row behind off its chain.
            if leftBehind[slot] == 0, window.rows(ofSlot: slot) - removed[slot] - 1 >= keep { return .removed }
            if rowsFromHere > windowLimit { return .leftBehind }
            return .stays
        }
    }
}
