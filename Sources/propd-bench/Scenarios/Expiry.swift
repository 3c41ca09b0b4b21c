/// Keys that expire (issue 11): heartbeat throughput against the same Sets
/// without `ttl`, how late expiries arrive when many fall due together, and
/// the daemon's memory per pending deadline.
enum Expiry {
    /// A Set of `keys` (each to `value`), with `ttl` when given.
    static func setCall(_ keys: some Sequence<String>, value: Int, ttl: Int?) -> [UInt8] {
        var out = Array(#"{"method":"io.propd.Set","parameters":{"values":{"#.utf8)
        var first = true
        for key in keys {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: key.utf8)
            out.append(contentsOf: #"":"#.utf8)
            out.append(contentsOf: String(value).utf8)
        }
        out.append(UInt8(ascii: "}"))
        if let ttl { out.append(contentsOf: #","ttl":\#(ttl)"#.utf8) }
        out.append(contentsOf: "}}".utf8)
        out.append(0)
        return out
    }

    /// Writes every key once (1,000 per Set) so the measured Sets replace.
    static func prefill(_ socket: String, keys: [String], ttl: Int?) throws(BenchError) {
        let link = try RawConnection(path: socket)
        var index = 0
        while index < keys.count {
            let chunk = keys[index..<min(index + 1000, keys.count)]
            try link.roundTrip(setCall(chunk, value: 0, ttl: ttl))
            index += chunk.count
        }
    }

    /// Sets per second of one-key Sets cycling over `keys`, `depth` in flight
    /// on each of `connections` connections, for `seconds` after a warm-up.
    static func heartbeats(
        _ socket: String, keys: [String], ttl: Int?, connections: Int, depth: Int, seconds: Double
    ) throws(BenchError) -> Double {
        var links: [RawConnection] = []
        for _ in 0..<connections { links.append(try RawConnection(path: socket, nonBlocking: true)) }
        var poller = Poller(links)
        var next = 0
        func refill(_ index: Int, _ count: Int) throws(BenchError) {
            var out: [UInt8] = []
            for _ in 0..<count {
                out += setCall(CollectionOfOne(keys[next % keys.count]), value: next, ttl: ttl)
                next += 1
            }
            try links[index].send(out)
        }
        for index in links.indices { try refill(index, depth) }
        let warmupEnd = now() + 500_000_000
        let end = warmupEnd + UInt64(seconds * 1e9)
        var counted = 0
        var measureStart: UInt64?
        var failed = false
        while true {
            let time = now()
            if measureStart == nil, time >= warmupEnd {
                measureStart = time
                counted = 0
            }
            if time >= end { break }
            try poller.wait(timeout: 100) { (index: Int) throws(BenchError) in
                let replies = try links[index].receive { if $0.isError { failed = true } }
                if replies > 0 {
                    counted += replies
                    try refill(index, replies)
                }
            }
        }
        if failed { throw BenchError("a heartbeat Set failed") }
        return Double(counted) / (Double(now() - (measureStart ?? warmupEnd)) / 1e9)
    }

    /// `groups` Sets of `perGroup` keys each, their ttls `spread` ms apart so
    /// that all of them fall due within about one second, timed from the
    /// client's send (an upper bound: it includes the Set's own round trip)
    /// to the delete event's arrival at a subscriber.
    static func lateness(_ socket: String, run: Int, groups: Int, perGroup: Int, baseTTL: Int, spread: Int)
        throws(BenchError) -> Latencies
    {
        let prefix = "bench.exp.r\(run)"
        let subscriber = try RawConnection(path: socket)
        try subscriber.subscribe(prefix + ".**")
        let writer = try RawConnection(path: socket)
        var deadlines: [UInt64] = []
        for group in 0..<groups {
            let ttl = baseTTL + group * spread
            let keys = (0..<perGroup).map { "\(prefix).g\(group).k\($0)" }
            let sent = now()
            try writer.roundTrip(setCall(keys, value: group, ttl: ttl))
            deadlines.append(sent + UInt64(ttl) * 1_000_000)
        }
        var latencies = Latencies()
        let total = groups * perGroup
        var seen = 0
        let giveUp = now() + UInt64(baseTTL + groups * spread) * 1_000_000 + 30_000_000_000
        while seen < total {
            if now() > giveUp { throw BenchError("only \(seen) of \(total) keys expired in time") }
            var groupsOfFrames: [Int] = []
            try subscriber.receive { frame in
                guard frame.contains(#""kind":"delete""#) else { return }
                groupsOfFrames.append(Self.group(in: frame, prefix: prefix) ?? 0)
            }
            let arrived = now()
            for group in groupsOfFrames {
                latencies.record(arrived > deadlines[group] ? arrived - deadlines[group] : 0)
            }
            seen += groupsOfFrames.count
        }
        return latencies
    }

    /// The `N` of `"<prefix>.gN.` in an event frame.
    private static func group(in frame: UnsafeRawBufferPointer, prefix: String) -> Int? {
        let needle = Array((prefix + ".g").utf8)
        guard frame.count >= needle.count else { return nil }
        for start in 0...(frame.count - needle.count) where frame[start] == needle[0] {
            guard (0..<needle.count).allSatisfy({ frame[start + $0] == needle[$0] }) else { continue }
            var index = start + needle.count
            var number = 0
            var digits = 0
            while index < frame.count, frame[index] >= UInt8(ascii: "0"), frame[index] <= UInt8(ascii: "9") {
                number = number * 10 + Int(frame[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            return digits > 0 ? number : nil
        }
        return nil
    }

    /// propd's RSS growth per key, in bytes: `count` keys written without ttl
    /// (the reference: the same keys written again), then with one.
    static func memory(_ socket: String, pid: Int32, run: Int, count: Int) throws(BenchError)
        -> (withoutTTL: Double, withTTL: Double)
    {
        let keys = (0..<count).map { "bench.mem.r\(run).k\($0)" }
        try prefill(socket, keys: keys, ttl: nil)
        let start = try residentKiB(pid: pid)
        try prefill(socket, keys: keys, ttl: nil)
        let rewritten = try residentKiB(pid: pid)
        try prefill(socket, keys: keys, ttl: 3_600_000)
        let expiring = try residentKiB(pid: pid)
        return (Double(rewritten - start) * 1024 / Double(count), Double(expiring - rewritten) * 1024 / Double(count))
    }
}
