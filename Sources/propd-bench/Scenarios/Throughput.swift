/// Set throughput over `connections` connections, each keeping `depth` calls
/// in flight (depth 1: one call at a time per connection; more: pipelined).
///
/// One thread drives every connection with poll(2), like redis-benchmark, so
/// the client takes as little of the two cores as it can. Each connection
/// writes its own key; a reply read frees its slot and the freed slots are
/// refilled with one write.
struct Throughput {
    var socket: String
    var connections: Int
    var depth: Int
    var seconds: Double
    var warmupSeconds: Double = 0.5
    /// propd's pid, to measure its CPU per Set.
    var pid: Int32?
    /// The call a connection sends, by connection index and call number
    /// (default: a Set of the connection's own key).
    var call: ((_ connection: Int, _ number: Int) -> [UInt8])? = nil

    struct Result {
        /// Calls answered per second (Sets unless `call` says otherwise).
        var setsPerSecond: Double
        /// propd's CPU (all threads) per Set, when its pid is known.
        var daemonMicrosecondsPerSet: Double?
    }

    /// Sets per second, after a warm-up; throws if any Set failed.
    func run() throws(BenchError) -> Result {
        var links: [RawConnection] = []
        for _ in 0..<connections { links.append(try RawConnection(path: socket, nonBlocking: true)) }
        let keys = (0..<connections).map { "bench.t\(depth).c\($0)" }
        var nextValue = [Int](repeating: 0, count: connections)
        var poller = Poller(links)

        func refill(_ index: Int, _ count: Int) throws(BenchError) {
            if let call {
                try links[index].send((nextValue[index]..<nextValue[index] + count).flatMap { call(index, $0) })
            } else {
                try links[index].send(Calls.sets(keys[index], from: nextValue[index], count: count))
            }
            nextValue[index] += count
        }
        for index in links.indices { try refill(index, depth) }

        let start = now()
        let warmupEnd = start + UInt64(warmupSeconds * 1e9)
        let end = warmupEnd + UInt64(seconds * 1e9)
        var counted = 0
        var errors = 0
        var measuring = false
        var measureStart = warmupEnd
        var cpu = CPUMeter(pid: pid)
        while true {
            let time = now()
            if !measuring, time >= warmupEnd {
                measuring = true
                measureStart = time
                counted = 0
                cpu.start()
            }
            if time >= end { break }
            try poller.wait(timeout: 100) { (index: Int) throws(BenchError) in
                let replies = try links[index].receive { frame in if frame.isError { errors += 1 } }
                if replies > 0 {
                    counted += replies
                    try refill(index, replies)
                }
            }
        }
        let elapsed = Double(now() - measureStart) / 1e9
        let cpuPerSet = cpu.microseconds(per: counted)
        if errors > 0 { throw BenchError("\(errors) calls failed") }
        return Result(setsPerSecond: Double(counted) / elapsed, daemonMicrosecondsPerSet: cpuPerSet)
    }
}
