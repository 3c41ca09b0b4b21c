import PropdCore

/// A subscriber's live events not yet taken by its consumer, oldest first.
///
/// A FIFO of shared events. When coalescing, appending an event for a key
/// that already has one pending removes the older one (leaving a hole that is
/// skipped), so only the latest pending value per key stays, still in
/// revision order, and the events of one revision stay contiguous because
/// removal never reorders. Error events coalesce only with error events: an
/// error keeps the key's value, so it must not hide the value that preceded it.
struct PendingEvents {
    private struct CoalesceKey: Hashable {
        var key: String
        var isError: Bool
    }

    private var items: [EncodedEvent?] = []
    private var head = 0
    /// Absolute position of `items[0]`, so positions survive dropping the front.
    private var base = 0
    private var holes = 0
    /// Pending events (holes excluded).
    private(set) var count = 0
    /// Absolute position of the pending event per key; only when coalescing.
    private var latestByKey: [CoalesceKey: Int]?

    /// Encoded bytes of the pending events, when counting.
    private(set) var bytes = 0
    private let countsBytes: Bool

    init(coalescing: Bool, countingBytes: Bool = false) {
        latestByKey = coalescing ? [:] : nil
        countsBytes = countingBytes
    }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ event: EncodedEvent) {
        if latestByKey != nil {
            let key = CoalesceKey(key: event.event.key, isError: event.event.kind == .error)
            if let old = latestByKey?[key] {
                items[old - base] = nil
                holes += 1
                count -= 1
            }
            latestByKey?[key] = base + items.count
        }
        items.append(event)
        count += 1
        if countsBytes { bytes += event.size }
        if holes > 64 && holes > count { compact() }
    }

    /// The oldest pending event, without taking it.
    mutating func first() -> EncodedEvent? {
        skipHoles()
        return head < items.count ? items[head] : nil
    }

    mutating func popFirst() -> EncodedEvent? {
        skipHoles()
        guard head < items.count, let event = items[head] else { return nil }
        if latestByKey != nil {
            let key = CoalesceKey(key: event.event.key, isError: event.event.kind == .error)
            if latestByKey?[key] == base + head { latestByKey?[key] = nil }
        }
        items[head] = nil
        head += 1
        count -= 1
        if countsBytes { bytes -= event.size }
        if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            base += head
            head = 0
        }
        if count == 0 { reset() }
        return event
    }

    /// Drops the pending events at or below `revision` (they are in the backlog).
    mutating func removeAll(through revision: Revision) {
        while let event = first(), event.event.revision <= revision {
            _ = popFirst()
        }
    }

    /// Empties the queue after the consumer caught up. A small buffer is
    /// kept (a consumer that keeps up would otherwise free and reallocate it
    /// for every event); a large one is given back.
    private mutating func reset() {
        clear(keepingCapacity: items.capacity <= 128)
    }

    mutating func removeAll() {
        clear(keepingCapacity: false)
    }

    private mutating func clear(keepingCapacity: Bool) {
        items.removeAll(keepingCapacity: keepingCapacity)
        head = 0
        base = 0
        holes = 0
        count = 0
        bytes = 0
        if latestByKey?.isEmpty == false { latestByKey = [:] }
    }

    private mutating func skipHoles() {
        while head < items.count, items[head] == nil {
            head += 1
            holes -= 1
        }
    }

    private mutating func compact() {
        let live = items[head...].compactMap { $0 }
        items = live
        head = 0
        base = 0
        holes = 0
        if latestByKey != nil {
            var positions: [CoalesceKey: Int] = [:]
            for (i, event) in live.enumerated() {
                positions[CoalesceKey(key: event.event.key, isError: event.event.kind == .error)] = i
            }
            latestByKey = positions
        }
    }
}
